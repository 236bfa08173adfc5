// softmax on a raw float32 array seen as outer x n x inner, along n:
// exp(x - max) / sum, numerically stable (ops::softmax and firmware).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace litegraph::kernels {

inline void softmax(const float* x, float* out, std::int64_t outer, std::int64_t n,
                    std::int64_t inner) {
    if (outer * n * inner == 0) return;  // empty: no element (and no buffer) to touch
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            const float* xs = x + o * n * inner + k;
            float* os = out + o * n * inner + k;
            float m = -INFINITY;
            for (std::int64_t j = 0; j < n; ++j) m = std::max(m, xs[j * inner]);
            float sum = 0.f;
            for (std::int64_t j = 0; j < n; ++j) {
                os[j * inner] = std::exp(xs[j * inner] - m);
                sum += os[j * inner];
            }
            for (std::int64_t j = 0; j < n; ++j) os[j * inner] /= sum;
        }
}

}  // namespace litegraph::kernels
