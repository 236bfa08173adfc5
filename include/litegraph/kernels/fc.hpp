// The desktop form of the matrix product of mul / matmul / matmul_v2:
// Out[M, N] = alpha * op(X)[M, K] * op(Y)[K, N] (the shape of
// kernels/matmul.hpp's gemm_shape) on the packed SGEMM of gemm.hpp, or, for
// one row (M = 1, a matrix-vector product bound by memory), a GEMV that
// streams Y once.  It uses heap scratch (the transposed operand, the SGEMM's
// workspace), so firmware keeps the plain loop of kernels/matmul.hpp.
//
//   kernels::fc_gemm(shape, x, y, out);            // every column
//   kernels::fc_gemm(shape, x, y, out, n0, n1);    // columns [n0, n1) only
//
// A column range lets callers split one product over threads: ranges that
// start and end on multiples of fc_column_grain (or at N) give every element
// the same arithmetic as one call over all columns, so the outputs are
// bit-identical however the columns are split.  Transposes are handled by
// packing the transposed operand (only the range's columns of Y) into scratch
// before the product, never by a strided inner loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/matmul.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// Column ranges that start and end on multiples of this (or at N) give
/// results identical to one call: a multiple of the SGEMM's panel width and
/// of the GEMV's column block.
inline constexpr std::int64_t fc_column_grain = 4 * gemm_tile::nr * 8;

namespace fc_detail {

/// Stores alpha * value.
struct scaled_store {
    float* c;
    std::int64_t ldc;
    float alpha;
    void operator()(std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) const {
        float* o = c + row * ldc + col0;
        for (std::int64_t j = 0; j < count; ++j) o[j] = alpha * v[j];
    }
};

/// Scratch for the transposed operands, one per thread.
struct scratch {
    std::vector<float> x, y;
    static scratch& local() {
        thread_local scratch s;
        return s;
    }
    static float* grow(std::vector<float>& v, std::int64_t n) {
        if (static_cast<std::int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
        return v.data();
    }
};

/// GEMV column block: out stays in L1 while Y's rows stream through it.
inline constexpr std::int64_t gemv_block = 1024;

/// out[j] = sum_k x[k] * y[k * ldy + j] for j in [0, n): Y row-major [K, .],
/// read once, four rows at a time.
inline void gemv_rows(const float* x, const float* y, std::int64_t ldy, float* out, std::int64_t K,
                      std::int64_t n) {
    using simd::vfloat;
    using simd::width;
    for (std::int64_t j0 = 0; j0 < n; j0 += gemv_block) {
        const std::int64_t cols = std::min(gemv_block, n - j0), vec = cols / width * width;
        float* o = out + j0;
        std::fill(o, o + cols, 0.f);
        std::int64_t k = 0;
        for (; k + 4 <= K; k += 4) {
            const float* r0 = y + k * ldy + j0;
            const float* r1 = r0 + ldy;
            const float* r2 = r1 + ldy;
            const float* r3 = r2 + ldy;
            const vfloat a0(x[k]), a1(x[k + 1]), a2(x[k + 2]), a3(x[k + 3]);
            for (std::int64_t j = 0; j < vec; j += width) {
                vfloat acc = simd::load(o + j);
                acc = simd::fmadd(a0, simd::load(r0 + j), acc);
                acc = simd::fmadd(a1, simd::load(r1 + j), acc);
                acc = simd::fmadd(a2, simd::load(r2 + j), acc);
                acc = simd::fmadd(a3, simd::load(r3 + j), acc);
                simd::store(o + j, acc);
            }
            for (std::int64_t j = vec; j < cols; ++j) {
                float acc = o[j];
                acc += x[k] * r0[j];
                acc += x[k + 1] * r1[j];
                acc += x[k + 2] * r2[j];
                acc += x[k + 3] * r3[j];
                o[j] = acc;
            }
        }
        for (; k < K; ++k) {
            const float* r = y + k * ldy + j0;
            const vfloat a(x[k]);
            for (std::int64_t j = 0; j < vec; j += width)
                simd::store(o + j, simd::fmadd(a, simd::load(r + j), simd::load(o + j)));
            for (std::int64_t j = vec; j < cols; ++j) o[j] += x[k] * r[j];
        }
    }
}

/// R dot products out[r] = x . y_r (each y_r K contiguous floats), with the
/// same arithmetic per row for every R.
template <int R>
inline void dots(const float* x, const float* const* y, float* out, std::int64_t K) {
    using simd::vfloat;
    using simd::width;
    vfloat acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vfloat(0.f);
    const std::int64_t vec = K / width * width;
    for (std::int64_t k = 0; k < vec; k += width) {
        const vfloat xv = simd::load(x + k);
        for (int r = 0; r < R; ++r) acc[r] = simd::fmadd(xv, simd::load(y[r] + k), acc[r]);
    }
    for (int r = 0; r < R; ++r) {
        float lanes[width];
        simd::store(lanes, acc[r]);
        float s = 0.f;
        for (std::int64_t l = 0; l < width; ++l) s += lanes[l];
        for (std::int64_t k = vec; k < K; ++k) s += x[k] * y[r][k];
        out[r] = s;
    }
}

/// out[j] = x . y[j * K, +K) for j in [0, n): Y stored [N, K] (transposed).
inline void gemv_dots(const float* x, const float* y, float* out, std::int64_t K, std::int64_t n) {
    std::int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const float* rows[4] = {y + j * K, y + (j + 1) * K, y + (j + 2) * K, y + (j + 3) * K};
        dots<4>(x, rows, out + j, K);
    }
    for (; j < n; ++j) {
        const float* rows[1] = {y + j * K};
        dots<1>(x, rows, out + j, K);
    }
}

}  // namespace fc_detail

/// fc_gemm on the SGEMM for any M (no GEMV for one row): callers that split
/// a product's rows call it so that every part does the same arithmetic.
inline void fc_sgemm(const gemm_shape& s, const float* x, const float* y, float* out,
                     std::int64_t n0, std::int64_t n1) {
    const std::int64_t M = s.m, K = s.k, N = s.n;
    n1 = std::min(n1, N);
    if (M <= 0 || n0 >= n1) return;
    const std::int64_t cols = n1 - n0;
    auto& sc = fc_detail::scratch::local();
    const float* a = x;
    if (s.tx) {  // X stored [K, M]: pack X^T
        float* t = fc_detail::scratch::grow(sc.x, M * K);
        for (std::int64_t k = 0; k < K; ++k)
            for (std::int64_t i = 0; i < M; ++i) t[i * K + k] = x[k * M + i];
        a = t;
    }
    const float* b = y + n0;
    std::int64_t ldb = N;
    if (s.ty) {  // Y stored [N, K]: pack the range's columns of Y^T
        float* t = fc_detail::scratch::grow(sc.y, K * cols);
        for (std::int64_t j = 0; j < cols; ++j) {
            const float* src = y + (n0 + j) * K;
            for (std::int64_t k = 0; k < K; ++k) t[k * cols + j] = src[k];
        }
        b = t;
        ldb = cols;
    }
    if (s.alpha == 1.f)
        sgemm(M, cols, K, a, K, b, ldb, store_epilogue{out + n0, N});
    else
        sgemm(M, cols, K, a, K, b, ldb, fc_detail::scaled_store{out + n0, N, s.alpha});
}

/// Columns [n0, n1) of Out[M, N] = alpha * op(X) * op(Y) into `out` (the whole
/// [M, N] output, row-major); see the top of this file.
inline void fc_gemm(const gemm_shape& s, const float* x, const float* y, float* out,
                    std::int64_t n0, std::int64_t n1) {
    const std::int64_t M = s.m, K = s.k, N = s.n;
    n1 = std::min(n1, N);
    if (M <= 0 || n0 >= n1) return;
    const std::int64_t cols = n1 - n0;
    if (M == 1) {  // X is one row whether or not it is transposed
        float* o = out + n0;
        if (s.ty)
            fc_detail::gemv_dots(x, y + n0 * K, o, K, cols);
        else
            fc_detail::gemv_rows(x, y + n0, N, o, K, cols);
        if (s.alpha != 1.f)
            for (std::int64_t j = 0; j < cols; ++j) o[j] *= s.alpha;
        return;
    }
    fc_sgemm(s, x, y, out, n0, n1);
}

inline void fc_gemm(const gemm_shape& s, const float* x, const float* y, float* out) {
    fc_gemm(s, x, y, out, 0, s.n);
}

}  // namespace litegraph::kernels
