// See launch.cuh: the thread-local programmatic-launch switch.
#include "kernels/llm_decode/launch.cuh"

namespace cudabench::kernels::llm_decode {
namespace {
thread_local bool g_programmatic = false;
}

bool programmatic_launch() { return g_programmatic; }

programmatic_launch_scope::programmatic_launch_scope(bool on) : previous_(g_programmatic) { g_programmatic = on; }
programmatic_launch_scope::~programmatic_launch_scope() { g_programmatic = previous_; }

}  // namespace cudabench::kernels::llm_decode
