// Single-threaded SGEMM  C[M, N] = A[M, K] * B[K, N]  (row-major, leading dims),
// cache-blocked, with an xsimd register-tiled micro-kernel; the result leaves
// through an epilogue so that every output element is written exactly once.
//
//   struct my_epilogue {
//       // `count` finished values of row `row`, columns [col0, col0 + count).
//       // Called exactly once per (row, column); `values` is only valid
//       // during the call.  Runs of one row arrive in increasing col0.
//       void operator()(std::int64_t row, std::int64_t col0, const float* values,
//                       std::int64_t count);
//   };
//
//   kernels::sgemm(M, N, K, A, lda, B, ldb, kernels::store_epilogue{C, ldc});
//   auto pa = kernels::packed_a(M, K, A, lda);   // pack once (weights) ...
//   kernels::sgemm(pa, N, B, ldb, epi);          // ... and reuse
//
// Blocking (BLIS-style): N in blocks of nc columns, K in blocks of kc; A is
// packed once into MR-row panels per K block; B is read in place when its rows
// are contiguous enough, otherwise packed into NR-column panels.  The MR x NR
// micro-kernel keeps the tile in registers over the whole K block.  When
// K <= kc (every 1x1 conv of a mobile net) a tile is final after one pass and
// goes to the epilogue from a small MR x nc row buffer; otherwise partial sums
// live in an M x nc buffer until the last K block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// Copies finished values into a row-major matrix.
struct store_epilogue {
    float* c;
    std::int64_t ldc;
    void operator()(std::int64_t row, std::int64_t col0, const float* v, std::int64_t count) const {
        std::memcpy(c + row * ldc + col0, v, static_cast<std::size_t>(count) * sizeof(float));
    }
};

namespace gemm_tile {
/// Micro-tile rows and vectors per row of architecture A: 8 x 2 vectors with
/// AVX-512 (16 of 32 registers hold the tile), 6 x 2 vectors with
/// AVX/SSE/NEON (12 of 16).
template <class A>
struct of {
    static constexpr std::int64_t width = simd::width_of<A>;
    static constexpr std::int64_t mr = width >= 16 ? 8 : (width == 1 ? 4 : 6);
    static constexpr std::int64_t nb = width == 1 ? 4 : 2;
    static constexpr std::int64_t nr = nb * width;
};
using simd::width;
/// The compile-time architecture's tile (the run-time one: packed_a::tile_rows).
inline constexpr std::int64_t mr = of<simd::default_arch>::mr;
inline constexpr std::int64_t nb = of<simd::default_arch>::nb;
inline constexpr std::int64_t nr = of<simd::default_arch>::nr;
inline constexpr std::int64_t kc = 256;        // K block: an A panel (mr x kc) stays in L1
inline constexpr std::int64_t nc = 512;        // N block when K fits one K block
inline constexpr std::int64_t nc_multi = 128;  // N block when partial sums wait in M x nc
/// The SGEMM's N block for a depth of k: the columns of one block are
/// computed together, and a call over columns [j0, j0 + n) with j0 a
/// multiple of it hands the epilogue the same runs as one call over all.
constexpr std::int64_t column_block(std::int64_t k) {
    return k <= kc ? nc : nc_multi;
}
}  // namespace gemm_tile

namespace detail {

template <std::int64_t... I, class F>
inline void unroll(std::integer_sequence<std::int64_t, I...>, F&& f) {
    (f(std::integral_constant<std::int64_t, I>{}), ...);
}

/// c[MR x NR] (=|+=) a[kc x MR panel] * b[kc rows of NR, stride ldb].
template <class A>
inline void micro_kernel(std::int64_t kc, const float* a, const float* b, std::int64_t ldb,
                         float* c, std::int64_t ldc, bool accumulate) {
    using T = gemm_tile::of<A>;
    constexpr std::int64_t mr = T::mr, nb = T::nb, width = T::width;
    using vfloat = typename simd::arch_traits<A>::vfloat;
    vfloat acc[mr][nb];
    for (std::int64_t r = 0; r < mr; ++r)
        for (std::int64_t j = 0; j < nb; ++j) acc[r][j] = vfloat(0.f);
    for (std::int64_t p = 0; p < kc; ++p) {
        vfloat bv[nb];
        unroll(std::make_integer_sequence<std::int64_t, nb>{},
               [&](auto j) { bv[j] = simd::load<vfloat>(b + j * width); });
        unroll(std::make_integer_sequence<std::int64_t, mr>{}, [&](auto r) {
            const vfloat av(a[r]);
            unroll(std::make_integer_sequence<std::int64_t, nb>{},
                   [&](auto j) { acc[r][j] = simd::fmadd(av, bv[j], acc[r][j]); });
        });
        a += mr;
        b += ldb;
    }
    unroll(std::make_integer_sequence<std::int64_t, mr>{}, [&](auto r) {
        unroll(std::make_integer_sequence<std::int64_t, nb>{}, [&](auto j) {
            float* cp = c + r * ldc + j * width;
            simd::store(cp, accumulate ? vfloat(acc[r][j] + simd::load<vfloat>(cp)) : acc[r][j]);
        });
    });
}

/// One MR-row panel of A against a K block of B's columns [0, cols): the
/// micro-kernel over every NR-column panel, B read in place (stride ldb)
/// unless `pack_all` or the ragged last panel, which come from `bbuf`.
template <class A>
void gemm_row_panel(std::int64_t kb, const float* ap, const float* b, std::int64_t ldb,
                    const float* bbuf, bool pack_all, float* ct, std::int64_t ldc,
                    std::int64_t cols, bool accumulate) {
    constexpr std::int64_t nr = gemm_tile::of<A>::nr;
    for (std::int64_t jr = 0; jr < cols; jr += nr) {
        const bool packed = pack_all || cols - jr < nr;
        const float* bp = packed ? bbuf + jr * kb : b + jr;
        micro_kernel<A>(kb, ap, bp, packed ? nr : ldb, ct + jr, ldc, accumulate);
    }
}

/// Copies one NR-float row of a B panel (a fixed-size copy: a few vector
/// moves instead of a memcpy call per row).
template <std::int64_t NR>
inline void pack_b_rows(std::int64_t kb, const float* src, std::int64_t ldb, std::int64_t full,
                        float* bbuf) {
    // Row by row of B (sequential reads), every full panel of the row.
    for (std::int64_t p = 0; p < kb; ++p) {
        const float* s = src + p * ldb;
        float* d = bbuf + p * NR;
        for (std::int64_t jr = 0; jr < full; jr += NR, d += NR * kb)
            std::memcpy(d, s + jr, NR * sizeof(float));
    }
}

/// Packs a K block of B's columns [0, cols) into NR-column panels
/// (panel jr at bbuf + jr * kb, kb rows of NR floats): every panel when
/// `pack_all`, else only the ragged last one (zero-padded to NR).
inline void pack_b(std::int64_t kb, const float* b, std::int64_t ldb, std::int64_t cols,
                   std::int64_t nr, bool pack_all, float* bbuf) {
    const std::int64_t full = pack_all ? cols / nr * nr : 0;
    if (full > 0) {
        if (nr == 8)
            pack_b_rows<8>(kb, b, ldb, full, bbuf);
        else if (nr == 16)
            pack_b_rows<16>(kb, b, ldb, full, bbuf);
        else if (nr == 32)
            pack_b_rows<32>(kb, b, ldb, full, bbuf);
        else
            for (std::int64_t p = 0; p < kb; ++p)
                for (std::int64_t jr = 0; jr < full; jr += nr)
                    std::memcpy(bbuf + jr * kb + p * nr, b + p * ldb + jr,
                                static_cast<std::size_t>(nr) * sizeof(float));
    }
    for (std::int64_t jr = cols / nr * nr; jr < cols; jr += nr) {  // the ragged panel
        const std::int64_t n = cols - jr;
        float* dst = bbuf + jr * kb;
        for (std::int64_t p = 0; p < kb; ++p) {
            std::memcpy(dst + p * nr, b + p * ldb + jr,
                        static_cast<std::size_t>(n) * sizeof(float));
            std::fill(dst + p * nr + n, dst + (p + 1) * nr, 0.f);
        }
    }
}

/// An architecture's SGEMM: its tile and its row-panel kernel.
struct gemm_impl {
    std::int64_t mr = 0, nr = 0;
    void (*row_panel)(std::int64_t, const float*, const float*, std::int64_t, const float*, bool,
                      float*, std::int64_t, std::int64_t, bool) = nullptr;
};
template <class A>
constexpr gemm_impl gemm_impl_of() {
    return {gemm_tile::of<A>::mr, gemm_tile::of<A>::nr, &gemm_row_panel<A>};
}
/// The SGEMM of a slot: its arch unit's, or the compile-time architecture's.
inline gemm_impl gemm_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i)) return *t->gemm;
    return gemm_impl_of<simd::default_arch>();
}

}  // namespace detail

/// A packed into MR-row panels, K block by K block (zero rows pad M to MR).
class packed_a {
public:
    packed_a() = default;
    packed_a(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda) {
        pack(m, k, a, lda);
    }

    /// Packs for the active instruction set's tile (simd::active()).
    void pack(std::int64_t m, std::int64_t k, const float* a, std::int64_t lda) {
        using gemm_tile::kc;
        isa_ = simd::active();
        const std::int64_t mr = detail::gemm_for(isa_).mr;
        mr_ = mr;
        m_ = m, k_ = k;
        mpad_ = (m + mr - 1) / mr * mr;
        data_.assign(static_cast<std::size_t>(mpad_ * k), 0.f);
        for (std::int64_t pc = 0; pc < k; pc += kc) {
            const std::int64_t kb = std::min(kc, k - pc);
            for (std::int64_t ir = 0; ir < m; ir += mr) {
                float* dst = panel(pc, ir);
                const std::int64_t rows = std::min(mr, m - ir);
                for (std::int64_t r = 0; r < rows; ++r) {
                    const float* src = a + (ir + r) * lda + pc;
                    for (std::int64_t p = 0; p < kb; ++p) dst[p * mr + r] = src[p];
                }
            }
        }
    }
    std::int64_t rows() const { return m_; }
    std::int64_t cols() const { return k_; }
    /// The instruction set packed for, and its tile's rows.
    simd::isa isa() const { return isa_; }
    std::int64_t tile_rows() const { return mr_; }
    /// The panel of rows [ir, ir + MR) for the K block starting at pc.
    const float* panel(std::int64_t pc, std::int64_t ir) const {
        return data_.data() + pc * mpad_ + ir * std::min(gemm_tile::kc, k_ - pc);
    }

private:
    float* panel(std::int64_t pc, std::int64_t ir) {
        return data_.data() + pc * mpad_ + ir * std::min(gemm_tile::kc, k_ - pc);
    }
    std::vector<float> data_;
    std::int64_t m_ = 0, k_ = 0, mpad_ = 0, mr_ = 0;
    simd::isa isa_ = simd::isa::baseline;
};

/// Reusable scratch memory for the kernels (one per thread; an epilogue must
/// not run another kernel on the same workspace).  Passing none
/// uses a thread-local one.
struct workspace {
    std::vector<float> a, b, c, d;
    packed_a pa;                   // A packed by the sgemm overload that packs per call
    std::vector<packed_a> conv_w;  // conv filters packed per call, per group
    static float* grow(std::vector<float>& v, std::int64_t n) {
        if (static_cast<std::int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
        return v.data();
    }
    static workspace& local() {
        thread_local workspace ws;
        return ws;
    }
};

/// C = packed A * B through `epi` (see the top of this file).
template <class Epilogue>
void sgemm(const packed_a& a, std::int64_t n, const float* b, std::int64_t ldb, Epilogue&& epi,
           workspace* ws = nullptr) {
    using gemm_tile::kc, gemm_tile::nc, gemm_tile::nc_multi;
    const std::int64_t m = a.rows(), k = a.cols();
    if (m <= 0 || n <= 0) return;
    // The kernels of the instruction set A was packed for (its tile).
    const detail::gemm_impl impl = detail::gemm_for(a.isa());
    const std::int64_t mr = impl.mr, nr = impl.nr;
    if (!ws) ws = &workspace::local();
    if (k <= 0) {  // C = 0
        float* z = workspace::grow(ws->c, n);
        std::fill(z, z + n, 0.f);
        for (std::int64_t i = 0; i < m; ++i)
            epi(i, std::int64_t{0}, static_cast<const float*>(z), n);
        return;
    }
    const bool one_pass = k <= kc;
    const std::int64_t mpad = (m + mr - 1) / mr * mr;
    const std::int64_t ncb = gemm_tile::column_block(k);
    const std::int64_t ncmax = std::min(ncb, (n + nr - 1) / nr * nr);
    float* cbuf = workspace::grow(ws->c, (one_pass ? mr : mpad) * ncmax);
    // B packed into NR-column panels (always for the ragged last panel).
    float* bbuf = workspace::grow(ws->b, std::min(kc, k) * ncmax);
    // Reading B in place pays when few A panels reuse it; packing when many
    // do and a panel's row spans more than one cache line (AVX-512's 32
    // floats).  A row of 16 floats (AVX2) is one line, read as well in place:
    // on Zen 3 the copy costs more than it saves (the recognizer's 1x1 convs
    // at batch 8: 11.6 -> 10.5 ms without it).
    const bool pack_all = m > 4 * mr && nr * static_cast<std::int64_t>(sizeof(float)) > 64;

    for (std::int64_t jc = 0; jc < n; jc += ncb) {
        const std::int64_t nb_cols = std::min(ncb, n - jc);
        for (std::int64_t pc = 0; pc < k; pc += kc) {
            const std::int64_t kb = std::min(kc, k - pc);
            const bool last_k = pc + kb >= k;
            detail::pack_b(kb, b + pc * ldb + jc, ldb, nb_cols, nr, pack_all, bbuf);
            for (std::int64_t ir = 0; ir < m; ir += mr) {
                const float* ap = a.panel(pc, ir);
                float* ct = cbuf + (one_pass ? 0 : ir * ncmax);
                impl.row_panel(kb, ap, b + pc * ldb + jc, ldb, bbuf, pack_all, ct, ncmax, nb_cols,
                               pc > 0);
                if (last_k) {
                    const std::int64_t rows = std::min(mr, m - ir);
                    for (std::int64_t r = 0; r < rows; ++r)
                        epi(ir + r, jc, static_cast<const float*>(ct + r * ncmax), nb_cols);
                }
            }
        }
    }
}

/// C[M, N] = A[M, K] * B[K, N] through `epi`; packs A on every call.
template <class Epilogue>
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
           const float* b, std::int64_t ldb, Epilogue&& epi, workspace* ws = nullptr) {
    if (m <= 0 || n <= 0) return;
    if (!ws) ws = &workspace::local();
    ws->pa.pack(m, k, a, lda);
    sgemm(ws->pa, n, b, ldb, static_cast<Epilogue&&>(epi), ws);
}

}  // namespace litegraph::kernels
