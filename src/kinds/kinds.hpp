// The built-in kinds' descriptions, one function per file in src/kinds/. Only the catalog
// (catalog.cpp) calls them; everything else looks a kind up there.
#pragma once
#include "cudabench/kind_description.hpp"

namespace cudabench::kinds {

kind_description matmul();
kind_description memory_bandwidth();
kind_description llm_decode();
kind_description resnet50();
kind_description transformer_memory();
kind_description train_step();

}  // namespace cudabench::kinds
