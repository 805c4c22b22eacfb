// CPU double-precision reference of the MLP's loss and weight gradients (plain loops), for
// validating the first step of mlp_trainer on small shapes.
#pragma once
#include <vector>

namespace cudabench::train {

struct reference_grads {
  double loss = 0;
  std::vector<std::vector<double>> dw;  // per layer, [hidden out][hidden in], unscaled
};

// weights: layers x [hidden][hidden]; x0, target: [batch][hidden]. Loss = mean((Y - T)^2).
reference_grads reference_gradients(int layers, int hidden, int batch, const std::vector<double>& weights,
                                    const std::vector<double>& x0, const std::vector<double>& target);

}  // namespace cudabench::train
