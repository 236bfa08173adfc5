// The int8 GEMM form on VNNI (slots avx512vnni and avxvnni): vpdpbusd over
// activations shifted to u8 and the filter packed as int8 quads
// (int8_pack::quads); defines LITEGRAPH_INT8_VNNI where the flags give
// AVX-512 VNNI or AVX-VNNI.  kernels/conv_int8_fast.hpp has the overview.
#pragma once

#include "litegraph/kernels/conv_int8_avx2.hpp"

namespace litegraph::kernels::detail {
#if defined(LITEGRAPH_INT8_AVX2) &&                                                 \
    ((defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)) || \
     defined(__AVXVNNI__))
#define LITEGRAPH_INT8_VNNI 1
namespace int8_gemm_detail {
/// n bytes from s to d, each plus 128 (int8 to the u8 vpdpbusd multiplies:
/// the top bit flipped).
inline void copy_to_u8(std::uint8_t* d, const std::int8_t* s, std::int64_t n) noexcept {
    const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
    std::int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        _mm256_storeu_si256(
            reinterpret_cast<__m256i*>(d + i),
            _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i)), flip));
    for (; i < n; ++i) d[i] = static_cast<std::uint8_t>(s[i] ^ 0x80);
}
/// 16 bytes at p, p + s, ... p + 15 s (s 1 or 2).
inline __m128i load16u8(const std::uint8_t* p, std::int64_t s) noexcept {
    if (s == 1) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                                       _mm256_set1_epi16(0xff));  // the even bytes
    return _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}
/// The bytes [b, e) all-ones (0 <= b <= e <= 16), from lane_mask_table's
/// bytes (t: 16 zeros, 32 ones, 16 zeros).
inline __m128i byte_lanes(std::int64_t b, std::int64_t e) noexcept {
    const auto* t = reinterpret_cast<const std::int8_t*>(lane_mask_table) + 16;
    return _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 16 - b)),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 48 - e)));
}
/// Taps 4q .. 4q + 3 (t0 .. t3, 16 pixels each) as the panel's 16 quads.
inline void store_quads(std::int32_t* d, __m128i t0, __m128i t1, __m128i t2, __m128i t3) noexcept {
    const __m128i ab0 = _mm_unpacklo_epi8(t0, t1), ab1 = _mm_unpackhi_epi8(t0, t1);
    const __m128i cd0 = _mm_unpacklo_epi8(t2, t3), cd1 = _mm_unpackhi_epi8(t2, t3);
    auto* v = reinterpret_cast<__m128i*>(d);
    _mm_storeu_si128(v, _mm_unpacklo_epi16(ab0, cd0));      // pixels 0-3
    _mm_storeu_si128(v + 1, _mm_unpackhi_epi16(ab0, cd0));  // 4-7
    _mm_storeu_si128(v + 2, _mm_unpacklo_epi16(ab1, cd1));  // 8-11
    _mm_storeu_si128(v + 3, _mm_unpackhi_epi16(ab1, cd1));  // 12-15
}
#if defined(__AVX512VNNI__)
/// `Blocks` blocks of 16 pixels (panel pp, kq quads of taps each, blocks
/// `stride` int32 apart) times 8 channels of packed weights wp: vpdpbusd
/// into 8 x Blocks accumulators, minus each channel's corr, stored to acc
/// (channel rows `row` int32 apart).
template <int Blocks>
inline void vnni_tile(const std::int32_t* pp, std::int64_t stride, const std::int32_t* wp,
                      const std::int32_t* corr, std::int64_t kq, std::int32_t* acc,
                      std::int64_t row) noexcept {
    __m512i c[int8_vnni_mr][Blocks];
#pragma GCC unroll 8
    for (int r = 0; r < int8_vnni_mr; ++r)
#pragma GCC unroll 2
        for (int b = 0; b < Blocks; ++b) c[r][b] = _mm512_setzero_si512();
    for (std::int64_t q = 0; q < kq; ++q, pp += int8_nr, wp += int8_vnni_mr) {
        __m512i x[Blocks];
#pragma GCC unroll 2
        for (int b = 0; b < Blocks; ++b) x[b] = _mm512_loadu_si512(pp + b * stride);
#pragma GCC unroll 8
        for (int r = 0; r < int8_vnni_mr; ++r) {
            const __m512i a = _mm512_set1_epi32(wp[r]);
#pragma GCC unroll 2
            for (int b = 0; b < Blocks; ++b) c[r][b] = _mm512_dpbusd_epi32(c[r][b], x[b], a);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < int8_vnni_mr; ++r) {
        const __m512i k = _mm512_set1_epi32(corr[r]);
#pragma GCC unroll 2
        for (int b = 0; b < Blocks; ++b)
            _mm512_storeu_si512(acc + r * row + b * int8_nr, _mm512_sub_epi32(c[r][b], k));
    }
}
#else
/// The 256-bit (AVX-VNNI) tile: `Blocks` (1) block of 16 pixels, two
/// vectors, times the 4 channels of the 8-channel group wp starts at
/// (weights 8 apart per quad): 8 accumulators, the rest as above.
template <int Blocks>
inline void vnni_tile4(const std::int32_t* pp, const std::int32_t* wp, const std::int32_t* corr,
                       std::int64_t kq, std::int32_t* acc, std::int64_t row) noexcept {
    static_assert(Blocks == 1);
    __m256i c[4][2];
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) c[r][0] = c[r][1] = _mm256_setzero_si256();
    for (std::int64_t q = 0; q < kq; ++q, pp += int8_nr, wp += int8_vnni_mr) {
        const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pp));
        const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pp + 8));
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r) {
            const __m256i a = _mm256_set1_epi32(wp[r]);
            c[r][0] = _mm256_dpbusd_avx_epi32(c[r][0], x0, a);
            c[r][1] = _mm256_dpbusd_avx_epi32(c[r][1], x1, a);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
        const __m256i k = _mm256_set1_epi32(corr[r]);
        auto* d = reinterpret_cast<__m256i*>(acc + r * row);
        _mm256_storeu_si256(d, _mm256_sub_epi32(c[r][0], k));
        _mm256_storeu_si256(d + 1, _mm256_sub_epi32(c[r][1], k));
    }
}
#endif
}  // namespace int8_gemm_detail

/// The GEMM form on VNNI (AVX-512 VNNI, or the 256-bit AVX-VNNI): the activations as u8 (x + 128),
/// four taps of 16 pixels per vector, times the filter packed as quads of int8 taps
/// (int8_pack::quads), vpdpbusd (u8 x s8, four products summed into each int32 lane, exact); each
/// sum minus the filter's 128 * sum(f[oc]) is the int8 sum.  8 channels x 32 pixels per tile
/// (AVX-VNNI: 4 x 16).  The zero-padded image (kxk convs) is kept as u8, so its padding is 128;
/// pointwise convs shift while packing.
template <class A>
void conv_int8_gemm_vnni(const conv_geometry& g, const std::int8_t* x, const conv_int8_weights& w,
                         std::int64_t* scratch, int32_sink_ref sink) noexcept {
    namespace d8 = int8_gemm_detail;
    const std::int64_t k = w.k, kq = w.kp / 4, plane = g.oh * g.ow, in_plane = g.h * g.w;
    auto* panel = reinterpret_cast<std::int32_t*>(scratch);  // blocks x [kq][16] quads
    const std::int64_t run_blocks = int8_gemm_run_blocks(kq), run = run_blocks * int8_nr;
    auto* acc = panel + run_blocks * kq * int8_nr;  // [8][run]
    const bool pointwise = g.is_pointwise();
    auto* toff = scratch + run_blocks * kq * int8_nr / 2 + int8_vnni_mr * run / 2;
    const std::int64_t hp = g.h + g.pt + g.pb, wpd = g.w + g.pl + g.pr, pplane = hp * wpd;
    auto* padded = reinterpret_cast<std::uint8_t*>(toff + k);
    std::uint8_t* xp = padded + d8::pad_slack;
    if (!pointwise) {
        std::memset(padded, 0x80, static_cast<std::size_t>(g.c * pplane + 2 * d8::pad_slack));
        d8::pad_tap_offsets(g, wpd, toff);
    }
    const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
    std::int64_t soff[int8_nr];
    __m128i smask[int8_nr];
    alignas(16) std::uint8_t gathered[int8_nr];
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * in_plane;
        if (!pointwise)
            for (std::int64_t c = 0; c < g.c; ++c)
                for (std::int64_t r = 0; r < g.h; ++r)
                    d8::copy_to_u8(xp + c * pplane + (r + g.pt) * wpd + g.pl,
                                   xn + (c * g.h + r) * g.w, g.w);
        for (std::int64_t r0 = 0; r0 < plane; r0 += run) {
            const std::int64_t nrun = std::min(run, plane - r0);
            const std::int64_t blocks = (nrun + int8_nr - 1) / int8_nr;
            for (std::int64_t bl = 0; bl < blocks; ++bl) {
                const std::int64_t p0 = r0 + bl * int8_nr, nb = std::min(int8_nr, plane - p0);
                std::int32_t* pb = panel + bl * kq * int8_nr;
                if (pointwise && nb == int8_nr) {
                    auto row = [&](std::int64_t kk) {
                        return kk < k
                                   ? _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                                       xn + kk * in_plane + p0)),
                                                   flip)
                                   : flip;
                    };
                    for (std::int64_t q = 0; q < kq; ++q)
                        d8::store_quads(pb + q * int8_nr, row(4 * q), row(4 * q + 1),
                                        row(4 * q + 2), row(4 * q + 3));
                } else if (pointwise) {  // the last, partial block
                    auto* bytes = reinterpret_cast<std::uint8_t*>(pb);
                    for (std::int64_t kk = 0; kk < w.kp; ++kk)
                        for (std::int64_t b = 0; b < int8_nr; ++b)
                            bytes[((kk / 4) * int8_nr + b) * 4 + kk % 4] =
                                kk < k && b < nb
                                    ? static_cast<std::uint8_t>(xn[kk * in_plane + p0 + b] ^ 0x80)
                                    : std::uint8_t{0x80};
                } else {
                    const std::int64_t nseg = d8::block_segments(
                        g, wpd, p0, nb, soff, [&](std::int64_t s, std::int64_t b, std::int64_t e) {
                            smask[s] = d8::byte_lanes(b, e);
                        });
                    const bool whole = nseg == 1 && nb == int8_nr;
                    const bool vec = g.sw <= 2;
                    auto tap = [&](std::int64_t kk) -> __m128i {
                        if (kk >= k) return flip;
                        const std::uint8_t* base = xp + toff[kk];
                        if (!vec) {
                            for (std::int64_t b = 0; b < int8_nr; ++b) {
                                const std::int64_t p = std::min(p0 + b, plane - 1);
                                gathered[b] = base[(p / g.ow) * g.sh * wpd + (p % g.ow) * g.sw];
                            }
                            return _mm_load_si128(reinterpret_cast<const __m128i*>(gathered));
                        }
                        if (whole) return d8::load16u8(base + soff[0], g.sw);
                        __m128i v = flip;
                        for (std::int64_t s = 0; s < nseg; ++s)
                            v = _mm_blendv_epi8(v, d8::load16u8(base + soff[s], g.sw), smask[s]);
                        return v;
                    };
                    for (std::int64_t q = 0; q < kq; ++q)
                        d8::store_quads(pb + q * int8_nr, tap(4 * q), tap(4 * q + 1),
                                        tap(4 * q + 2), tap(4 * q + 3));
                }
            }
            const std::int64_t bstride = kq * int8_nr;
            for (std::int64_t o0 = 0; o0 < g.oc; o0 += int8_vnni_mr) {
                const std::int32_t* wp = w.words.data() + (o0 / int8_vnni_mr) * kq * int8_vnni_mr;
                const std::int32_t* corr = w.corr.data() + o0;
#if defined(__AVX512VNNI__)
                std::int64_t bl = 0;
                for (; bl + 2 <= blocks; bl += 2)
                    d8::vnni_tile<2>(panel + bl * bstride, bstride, wp, corr, kq,
                                     acc + bl * int8_nr, run);
                if (bl < blocks)
                    d8::vnni_tile<1>(panel + bl * bstride, bstride, wp, corr, kq,
                                     acc + bl * int8_nr, run);
#else
                for (std::int64_t bl = 0; bl < blocks; ++bl)
                    for (std::int64_t h = 0; h < 2 && o0 + 4 * h < g.oc; ++h)
                        d8::vnni_tile4<1>(panel + bl * bstride, wp + 4 * h, corr + 4 * h, kq,
                                          acc + 4 * h * run + bl * int8_nr, run);
#endif
                const std::int64_t mr = std::min(int8_vnni_mr, g.oc - o0);
                for (std::int64_t r = 0; r < mr; ++r) sink(n, o0 + r, r0, acc + r * run, nrun);
            }
        }
    }
}
#endif
}  // namespace litegraph::kernels::detail
