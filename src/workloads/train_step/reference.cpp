// See reference.hpp. Forward keeps every layer's output; backward applies the ReLU mask from the
// pre-activation (z > 0), independently of the GPU code's use of the ReLU output.
#include "workloads/train_step/reference.hpp"

#include <cstddef>

namespace cudabench::train {

reference_grads reference_gradients(int layers, int hidden, int batch, const std::vector<double>& w,
                                    const std::vector<double>& x0, const std::vector<double>& t) {
  const std::size_t H = hidden, B = batch, HH = H * H;
  std::vector<std::vector<double>> x(layers + 1), z(layers);
  x[0] = x0;
  for (int l = 0; l < layers; ++l) {
    z[l].assign(B * H, 0.0);
    x[l + 1].assign(B * H, 0.0);
    const double* W = &w[l * HH];
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t o = 0; o < H; ++o) {
        double acc = 0;
        for (std::size_t i = 0; i < H; ++i) acc += x[l][b * H + i] * W[o * H + i];
        z[l][b * H + o] = acc;
        x[l + 1][b * H + o] = (l + 1 < layers) ? (acc > 0 ? acc : 0.0) : acc;
      }
  }
  reference_grads r;
  const double n = static_cast<double>(B * H);
  std::vector<double> dz(B * H);
  for (std::size_t i = 0; i < B * H; ++i) {
    const double d = x[layers][i] - t[i];
    r.loss += d * d / n;
    dz[i] = 2.0 * d / n;
  }
  r.dw.assign(layers, {});
  for (int l = layers - 1; l >= 0; --l) {
    std::vector<double>& dw = r.dw[l];
    dw.assign(HH, 0.0);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t o = 0; o < H; ++o) {
        const double g = dz[b * H + o];
        if (g == 0.0) continue;
        for (std::size_t i = 0; i < H; ++i) dw[o * H + i] += g * x[l][b * H + i];
      }
    if (l == 0) break;
    const double* W = &w[l * HH];
    std::vector<double> dx(B * H, 0.0);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t o = 0; o < H; ++o) {
        const double g = dz[b * H + o];
        for (std::size_t i = 0; i < H; ++i) dx[b * H + i] += g * W[o * H + i];
      }
    for (std::size_t i = 0; i < B * H; ++i) dx[i] = z[l - 1][i] > 0 ? dx[i] : 0.0;
    dz.swap(dx);
  }
  return r;
}

}  // namespace cudabench::train
