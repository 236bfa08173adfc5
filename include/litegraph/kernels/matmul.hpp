// The plain matrix product of mul / matmul / matmul_v2 (and firmware):
// (M x K) * (K x N) in i-k-j order on raw float32 arrays, no heap.
#pragma once

#include <cstdint>
#include <tuple>

namespace litegraph::kernels {

/// One product's shape: Out[M, N] = alpha * op(X)[M, K] * op(Y)[K, N];
/// `tx`: X is stored as [K, M]; `ty`: Y is stored as [N, K].
struct gemm_shape {
    std::int64_t m = 0, k = 0, n = 0;
    bool tx = false, ty = false;
    float alpha = 1.f;
    constexpr auto fields() const { return std::tie(m, k, n, tx, ty, alpha); }
};

/// One (M x K) * (K x N) product into `out` (overwritten).
inline void gemm(const float* x, const float* y, float* out, std::int64_t M, std::int64_t K,
                 std::int64_t N, bool tx, bool ty, float alpha) {
    for (std::int64_t i = 0; i < M * N; ++i) out[i] = 0.f;
    for (std::int64_t i = 0; i < M; ++i) {
        float* o = out + i * N;
        for (std::int64_t k = 0; k < K; ++k) {
            const float a = tx ? x[k * M + i] : x[i * K + k];
            if (ty)
                for (std::int64_t j = 0; j < N; ++j) o[j] += a * y[j * K + k];
            else
                for (std::int64_t j = 0; j < N; ++j) o[j] += a * y[k * N + j];
        }
    }
    if (alpha != 1.f)
        for (std::int64_t i = 0; i < M * N; ++i) out[i] *= alpha;
}

inline void gemm(const gemm_shape& s, const float* x, const float* y, float* out) {
    gemm(x, y, out, s.m, s.k, s.n, s.tx, s.ty, s.alpha);
}

}  // namespace litegraph::kernels
