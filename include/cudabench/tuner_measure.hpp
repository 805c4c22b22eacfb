// How long each candidate's measurement in a setup-time tuner's contest lasts (tuner_timer.hpp's
// time_candidates): the cuBLASLt contests of matmul and of llm_decode's prefill GEMMs, and the
// decode GEMV variants. Host-only.
//
// Why a setting: at the 700 W cap the contest's short measurements (2 ms, interleaved, best pass
// kept) and the timed repetitions (tens of ms after a 100 ms warm-up) need not see the same clock.
// On an H100 fp16 4096^3 took tile 20 in four processes of ten and tiles 23/24 in six: tile 20
// costs 3% fewer cycles (0.273 against 0.282 Mcycles) but ran 199-205 us against 186-197 us in the
// timed repetitions, since it draws more power and the cap lowers its clock
// (results/h100/verdicts/aa-full-5rounds-cecdd92/). Which tile won a 2 ms contest seems to depend
// on where the card's power state happened to be. A longer measurement was the hypothesis; measured
// (H100, results/h100/verdicts/tuner-measure-a9cb21a/), 20 ms contests flipped as often, picked no
// fewer cycles, and left the card at a lower clock for the timed runs: 2 ms stays the default.
#pragma once

namespace cudabench {

inline constexpr double default_tuner_measure_ms = 2.0;

// Each candidate's measurement lasts at least this long (ms): 2, or CUDABENCH_TUNER_MEASURE_MS=F
// with F from 0.1 to 1000. Read on every call; a bad value throws input_error naming it.
double tuner_measure_ms();

}  // namespace cudabench
