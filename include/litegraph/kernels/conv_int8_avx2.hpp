// The AVX2 int8 conv kernels (slots avx2 and avx512; the depthwise also
// on the VNNI slots), templates on the arch unit's architecture, bit-exact
// with kernels::conv2d_int8 (kernels/conv_int8_fast.hpp has the overview):
//  - conv_int8_gemm_avx2: ungrouped convs, int16 pairs of taps by vpmaddwd,
//    4 channels x 16 pixels per tile;
//  - conv_int8_depthwise_avx2: depthwise convs over a zero-padded int16
//    copy of each plane (stride 1: int16 pairs);
//  - int8_gemm_detail: what the GEMM forms share (lane masks, the padded
//    image's tap offsets, the block segments, madd_acc).
#pragma once

#include <array>
#include <utility>

#include "litegraph/kernels/conv_int8_pack.hpp"

namespace litegraph::kernels::detail {
#if defined(LITEGRAPH_INT8_AVX2)
namespace int8_gemm_detail {
/// 16 zeros, 16 all-ones, 16 zeros: loadu at 16 - b gives the int16 lanes >= b.
alignas(32) inline constexpr std::int16_t lane_mask_table[48] = {
    0,  0,  0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0,  0};
/// The int16 lanes [b, e) set (0 <= b <= e <= 16).
inline __m256i lanes(std::int64_t b, std::int64_t e) noexcept {
    const auto* t = lane_mask_table;
    return _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 16 - b)),
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 32 - e)));
}
/// Taps 2q (a) and 2q + 1 (b) of 16 pixels as the panel's 16 int16 pairs.
inline void store_pairs(std::int32_t* d, __m256i a, __m256i b) noexcept {
    const __m256i lo = _mm256_unpacklo_epi16(a, b);  // px 0-3 | 8-11
    const __m256i hi = _mm256_unpackhi_epi16(a, b);  // px 4-7 | 12-15
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
}
/// 16 int8 at p, p + s, ... p + 15 s (s 1 or 2) as int16.
inline __m256i load16(const std::int8_t* p, std::int64_t s) noexcept {
    if (s == 1) return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    // Stride 2: the low byte of each of 16 words, sign-extended.
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm256_srai_epi16(_mm256_slli_epi16(v, 8), 8);
}
/// Bytes of slack before and after the zero-padded input copy.
inline constexpr std::int64_t pad_slack = 64;
/// The offset of every tap k = (c, i, j) into the padded image (rows of
/// wpd bytes), the GEMM forms' toff.
inline void pad_tap_offsets(const conv_geometry& g, std::int64_t wpd, std::int64_t* toff) noexcept {
    const std::int64_t pplane = (g.h + g.pt + g.pb) * wpd;
    std::int64_t kk = 0;
    for (std::int64_t c = 0; c < g.c; ++c)
        for (std::int64_t i = 0; i < g.kh; ++i)
            for (std::int64_t j = 0; j < g.kw; ++j)
                toff[kk++] = c * pplane + i * g.dh * wpd + j * g.dw;
}
/// The segments of the block of nb pixels from p0, one per output row it
/// spans: lane b of segment s reads xp + soff[s] + b * sw + toff[tap];
/// lanes(s, b, e) is told that segment s has the lanes [b, e).  Returns
/// how many segments.
template <class Lanes>
inline std::int64_t block_segments(const conv_geometry& g, std::int64_t wpd, std::int64_t p0,
                                   std::int64_t nb, std::int64_t* soff, Lanes&& lanes) noexcept {
    std::int64_t nseg = 0;
    for (std::int64_t b = 0; b < nb; ++nseg) {
        const std::int64_t oh = (p0 + b) / g.ow, ow = (p0 + b) % g.ow;
        const std::int64_t len = std::min(nb - b, g.ow - ow);
        soff[nseg] = oh * g.sh * wpd + ow * g.sw - b * g.sw;
        lanes(nseg, b, b + len);
        b += len;
    }
    return nseg;
}
/// s + the pair sums of x * w (vpmaddwd, then vpaddd; one vpdpwssd where
/// A has VNNI: the same int32 sums, which wrap alike).
template <class A>
inline __m256i madd_acc(__m256i s, __m256i x, __m256i w) noexcept {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    if constexpr (simd::has_vnni<A>) return _mm256_dpwssd_epi32(s, x, w);
#elif defined(__AVXVNNI__)
    if constexpr (simd::has_vnni<A>) return _mm256_dpwssd_avx_epi32(s, x, w);
#endif
    return _mm256_add_epi32(s, _mm256_madd_epi16(x, w));
}
#if defined(__AVX512BW__)
/// madd_acc on 512-bit vectors.
template <class A>
inline __m512i madd_acc512(__m512i s, __m512i x, __m512i w) noexcept {
#if defined(__AVX512VNNI__)
    if constexpr (simd::has_vnni<A>) return _mm512_dpwssd_epi32(s, x, w);
#endif
    return _mm512_add_epi32(s, _mm512_madd_epi16(x, w));
}
#endif
#if defined(__AVX512BW__)
/// madd_acc512 accumulating in place (GCC copies an accumulator of a
/// vpdpwssd intrinsic between two registers on every use in a loop of
/// many accumulators; the instruction itself needs none).
template <class A>
inline void madd_into512(__m512i& s, __m512i x, __m512i w) noexcept {
#if defined(__AVX512VNNI__)
    if constexpr (simd::has_vnni<A>) {
        asm("vpdpwssd %2, %1, %0" : "+v"(s) : "v"(x), "v"(w));
        return;
    }
#endif
    s = _mm512_add_epi32(s, _mm512_madd_epi16(x, w));
}

/// A block of R output rows x V vectors of 16 pixels of a depthwise plane
/// (vertical dilation 1), on AVX-512: each input row's vectors are loaded
/// once per horizontal term and multiplied into every output row of the
/// block that reads them (R x V accumulators: vpdpwssd has a latency of 5
/// and two issue per cycle, so it needs about ten chains; and fewer loads
/// than multiplies).  p: the plane read at the block's first input row and
/// first pixel; rb: bytes per input row; tpr terms per row (weight pairs
/// wp[i * tpr + jt], byte offsets joff[jt]); the last vector has the lanes
/// of mask `last`; the block's input rows [r0, r1) are in the image (the
/// others, padding, are skipped).  Sums to out (rows `ow` apart).
template <class A, int R, int V>
inline void dw_block512(const char* p, std::int64_t rb, std::int64_t sh, std::int64_t kh,
                        std::int64_t tpr, const std::int32_t* wp, const std::int64_t* joff,
                        __mmask16 last, std::int32_t* out, std::int64_t ow, std::int64_t r0,
                        std::int64_t r1) noexcept {
    __m512i s[R][V];
#pragma GCC unroll 4
    for (int o = 0; o < R; ++o)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) s[o][v] = _mm512_setzero_si512();
    // Only the block's input rows [r0, r1) in the image: the others are zero.
    p += r0 * rb;
    for (std::int64_t r = r0; r < r1; ++r, p += rb)
        for (std::int64_t jt = 0; jt < tpr; ++jt) {
            const char* q = p + joff[jt];
            __m512i x[V];
#pragma GCC unroll 8
            for (int v = 0; v < V; ++v)
                x[v] = v + 1 < V ? _mm512_loadu_si512(q + 64 * v)
                                 : _mm512_maskz_loadu_epi32(last, q + 64 * v);
#pragma GCC unroll 4
            for (int o = 0; o < R; ++o) {
                const std::int64_t i = r - o * sh;
                if (i < 0 || i >= kh) continue;
                const __m512i w = _mm512_set1_epi32(wp[i * tpr + jt]);
#pragma GCC unroll 8
                for (int v = 0; v < V; ++v) madd_into512<A>(s[o][v], x[v], w);
            }
        }
#pragma GCC unroll 4
    for (int o = 0; o < R; ++o)
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) {
            std::int32_t* d = out + o * ow + 16 * v;
            if (v + 1 < V)
                _mm512_storeu_si512(d, s[o][v]);
            else
                _mm512_mask_storeu_epi32(d, last, s[o][v]);
        }
}
/// dw_block512<A, R, V> for R 1, 2 or 4 and V 1 to 8, by (R, V).
template <class A>
struct dw_blocks512 {
    using fn = void (*)(const char*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                        const std::int32_t*, const std::int64_t*, __mmask16, std::int32_t*,
                        std::int64_t, std::int64_t, std::int64_t) noexcept;
    template <int R, int... V>
    static constexpr std::array<fn, 8> row(std::integer_sequence<int, V...>) {
        return {&dw_block512<A, R, V + 1>...};
    }
    static constexpr auto vectors = std::make_integer_sequence<int, 8>{};
    static constexpr std::array<fn, 8> one = row<1>(vectors), two = row<2>(vectors),
                                       four = row<4>(vectors);
    static fn get(int r, int v) noexcept { return (r == 4 ? four : r == 2 ? two : one)[v - 1]; }
};
/// Every output row of a depthwise plane (vertical dilation 1) in
/// dw_block512 blocks: a row's vectors in runs of up to 8 (the last one's
/// pixels masked), rows 4 at a time for up to 5 vectors per run, else 2,
/// then the rows left.
template <class A>
inline void dw_plane512(const char* plane, std::int64_t rb, const conv_geometry& g,
                        std::int64_t tpr, const std::int32_t* wp, const std::int64_t* joff,
                        std::int32_t* out) noexcept {
    const std::int64_t sh = g.sh, kh = g.kh, oh = g.oh, ow = g.ow;
    const std::int64_t vectors = (ow + 15) / 16, runs = (vectors + 7) / 8;
    for (std::int64_t run = 0, v0 = 0; run < runs; ++run) {
        const int nv = static_cast<int>(vectors / runs + (run < vectors % runs ? 1 : 0));
        const std::int64_t lanes = std::min<std::int64_t>(16, ow - 16 * (v0 + nv - 1));
        const auto last = static_cast<__mmask16>((1u << lanes) - 1u);
        const int rmax = nv <= 5 ? 4 : 2;
        for (std::int64_t o = 0; o < oh;) {
            const std::int64_t left = oh - o;
            const int r = left >= rmax ? rmax : left >= 2 ? 2 : 1;
            const char* p = plane + o * sh * rb + v0 * 64;
            std::int32_t* d = out + o * ow + v0 * 16;
            // The block's input rows from padded row o * sh: those in the image.
            const std::int64_t rows = (r - 1) * sh + kh;
            const std::int64_t r0 = std::clamp<std::int64_t>(g.pt - o * sh, 0, rows);
            const std::int64_t r1 = std::clamp<std::int64_t>(g.pt + g.h - o * sh, r0, rows);
            dw_blocks512<A>::get(r, nv)(p, rb, sh, kh, tpr, wp, joff, last, d, ow, r0, r1);
            o += r;
        }
        v0 += nv;
    }
}
#endif
}  // namespace int8_gemm_detail

/// The GEMM form (groups 1): blocks of 16 pixels, their patches as int16
/// pairs of taps, times the packed filter 4 channels at a time.  A kxk (or
/// strided, padded) conv first copies each image into a zero-padded int8
/// buffer, so a tap of 16 pixels is a vector load (a blend per output row
/// the block spans; horizontal stride 1 or 2, else a gather) with no bound
/// checks.
template <class A>
void conv_int8_gemm_avx2(const conv_geometry& g, const std::int8_t* x, const conv_int8_weights& w,
                         std::int64_t* scratch, int32_sink_ref sink) noexcept {
    namespace d8 = int8_gemm_detail;
    const std::int64_t k = w.k, kq = w.kp / 2, plane = g.oh * g.ow, in_plane = g.h * g.w;
    auto* panel = reinterpret_cast<std::int32_t*>(scratch);  // blocks x [kq][16] pairs
    const std::int64_t run_blocks = int8_gemm_run_blocks(kq), run = run_blocks * int8_nr;
    auto* acc = panel + run_blocks * kq * int8_nr;  // [4][run]
    const bool pointwise = g.is_pointwise();
    // Not pointwise: the tap offsets into the padded image, and that image.
    auto* toff = scratch + run_blocks * kq * int8_nr / 2 + int8_mr * run / 2;
    const std::int64_t hp = g.h + g.pt + g.pb, wpd = g.w + g.pl + g.pr, pplane = hp * wpd;
    auto* padded = reinterpret_cast<std::int8_t*>(toff + k);
    std::int8_t* xp = padded + d8::pad_slack;
    if (!pointwise) {
        std::memset(padded, 0, static_cast<std::size_t>(g.c * pplane + 2 * d8::pad_slack));
        d8::pad_tap_offsets(g, wpd, toff);
    }
    std::int64_t soff[int8_nr];
    __m256i smask[int8_nr];
    alignas(32) std::int16_t gathered[int8_nr];
    for (std::int64_t n = 0; n < g.n; ++n) {
        const std::int8_t* xn = x + n * g.c * in_plane;
        if (!pointwise)
            for (std::int64_t c = 0; c < g.c; ++c)
                for (std::int64_t r = 0; r < g.h; ++r)
                    std::memcpy(xp + c * pplane + (r + g.pt) * wpd + g.pl, xn + (c * g.h + r) * g.w,
                                static_cast<std::size_t>(g.w));
        for (std::int64_t r0 = 0; r0 < plane; r0 += run) {
            // Up to int8_gemm_blocks blocks of 16 pixels packed, then each
            // 4-channel tile over all of them: its weights stay in L1, one
            // sink call per channel per run.
            const std::int64_t nrun = std::min(run, plane - r0);
            const std::int64_t blocks = (nrun + int8_nr - 1) / int8_nr;
            for (std::int64_t bl = 0; bl < blocks; ++bl) {
                const std::int64_t p0 = r0 + bl * int8_nr, nb = std::min(int8_nr, plane - p0);
                std::int32_t* pb = panel + bl * kq * int8_nr;
                if (pointwise && nb == int8_nr) {
                    // Rows 2q and 2q + 1 of the 16 pixels, interleaved as pairs.
                    for (std::int64_t q = 0; q < kq; ++q) {
                        const __m256i a = d8::load16(xn + 2 * q * in_plane + p0, 1);
                        const __m256i b = 2 * q + 1 < k
                                              ? d8::load16(xn + (2 * q + 1) * in_plane + p0, 1)
                                              : _mm256_setzero_si256();
                        d8::store_pairs(pb + q * int8_nr, a, b);
                    }
                } else if (pointwise) {  // the last, partial block
                    auto* p16b = reinterpret_cast<std::int16_t*>(pb);
                    for (std::int64_t kk = 0; kk < w.kp; ++kk) {
                        std::int16_t* dst = p16b + (kk / 2) * 2 * int8_nr + (kk & 1);
                        const std::int8_t* xc = kk < k ? xn + kk * in_plane + p0 : nullptr;
                        for (std::int64_t b = 0; b < int8_nr; ++b)
                            dst[2 * b] = xc && b < nb ? xc[b] : std::int16_t{0};
                    }
                } else {
                    const std::int64_t nseg = d8::block_segments(
                        g, wpd, p0, nb, soff, [&](std::int64_t s, std::int64_t b, std::int64_t e) {
                            smask[s] = d8::lanes(b, e);
                        });
                    const bool whole = nseg == 1 && nb == int8_nr;
                    const bool vec = g.sw <= 2;
                    auto tap = [&](std::int64_t kk) -> __m256i {
                        if (kk >= k) return _mm256_setzero_si256();
                        const std::int8_t* base = xp + toff[kk];
                        if (!vec) {
                            for (std::int64_t b = 0; b < int8_nr; ++b) {
                                const std::int64_t p = std::min(p0 + b, plane - 1);
                                gathered[b] = base[(p / g.ow) * g.sh * wpd + (p % g.ow) * g.sw];
                            }
                            return _mm256_load_si256(reinterpret_cast<const __m256i*>(gathered));
                        }
                        if (whole) return d8::load16(base + soff[0], g.sw);
                        __m256i v = _mm256_setzero_si256();
                        for (std::int64_t s = 0; s < nseg; ++s)
                            v = _mm256_blendv_epi8(v, d8::load16(base + soff[s], g.sw), smask[s]);
                        return v;
                    };
                    for (std::int64_t q = 0; q < kq; ++q)
                        d8::store_pairs(pb + q * int8_nr, tap(2 * q), tap(2 * q + 1));
                }
            }
            for (std::int64_t o0 = 0; o0 < g.oc; o0 += int8_mr) {
                for (std::int64_t bl = 0; bl < blocks; ++bl) {
                    const std::int32_t* wp = w.words.data() + (o0 / int8_mr) * kq * int8_mr;
                    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00;
                    __m256i c20 = c00, c21 = c00, c30 = c00, c31 = c00;
                    const std::int32_t* pp = panel + bl * kq * int8_nr;
                    for (std::int64_t q = 0; q < kq; ++q, pp += int8_nr, wp += int8_mr) {
                        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pp));
                        const __m256i b1 =
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pp + 8));
                        __m256i a = _mm256_set1_epi32(wp[0]);
                        c00 = d8::madd_acc<A>(c00, a, b0);
                        c01 = d8::madd_acc<A>(c01, a, b1);
                        a = _mm256_set1_epi32(wp[1]);
                        c10 = d8::madd_acc<A>(c10, a, b0);
                        c11 = d8::madd_acc<A>(c11, a, b1);
                        a = _mm256_set1_epi32(wp[2]);
                        c20 = d8::madd_acc<A>(c20, a, b0);
                        c21 = d8::madd_acc<A>(c21, a, b1);
                        a = _mm256_set1_epi32(wp[3]);
                        c30 = d8::madd_acc<A>(c30, a, b0);
                        c31 = d8::madd_acc<A>(c31, a, b1);
                    }
                    auto* av = reinterpret_cast<__m256i*>(acc + bl * int8_nr);
                    const std::int64_t row = run / 8;  // vectors per channel row of acc
                    _mm256_storeu_si256(av, c00), _mm256_storeu_si256(av + 1, c01);
                    _mm256_storeu_si256(av + row, c10), _mm256_storeu_si256(av + row + 1, c11);
                    _mm256_storeu_si256(av + 2 * row, c20);
                    _mm256_storeu_si256(av + 2 * row + 1, c21);
                    _mm256_storeu_si256(av + 3 * row, c30);
                    _mm256_storeu_si256(av + 3 * row + 1, c31);
                }
                const std::int64_t mr = std::min(int8_mr, g.oc - o0);
                for (std::int64_t r = 0; r < mr; ++r) sink(n, o0 + r, r0, acc + r * run, nrun);
            }
        }
    }
}

/// The depthwise form: per plane, a zero-padded int16 copy (stride 1: of
/// int16 pairs (x[c], x[c + dw])), then 8 output pixels per vector, a pair
/// of horizontal taps per vpmaddwd.
template <class A>
void conv_int8_depthwise_avx2(const conv_geometry& g, const std::int8_t* x,
                              const conv_int8_weights& w, std::int64_t* scratch,
                              int32_sink_ref sink) noexcept {
    namespace d8 = int8_gemm_detail;
    const std::int64_t hp = g.h + g.pt + g.pb, xs = g.w + g.pl + g.pr + 16 + g.dw;
    const std::int64_t plane = g.oh * g.ow, in_plane = g.h * g.w, kwp = w.kwp;
    auto* xp = reinterpret_cast<std::int16_t*>(scratch);
    auto* pp = reinterpret_cast<std::int32_t*>(scratch + (hp * xs + 16 + 3) / 4);
    auto* acc = pp + ((hp * xs + 16) / 2) * 2;
    const bool pairs = g.sw == 1 || g.dw == 1;  // stride 2 pairs adjacent taps only
    const std::int64_t step = pairs ? 2 : 1;    // taps per vpmaddwd
    __m256i wv[int8_dw_max_taps];
    [[maybe_unused]] std::int32_t wp32[int8_dw_max_taps];  // the AVX-512 blocks read these
    std::int64_t toff[int8_dw_max_taps];
    std::fill(xp, xp + hp * xs + 16, std::int16_t{0});
    // The taps as terms (a pair of horizontal taps, or one), so the pixel
    // loop is one loop of loads and vpmaddwd: each term's byte offset into
    // the plane read, the same for every plane.
    std::int64_t terms = 0;
    for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; j += step, ++terms)
            toff[terms] = (i * g.dh * xs + j * g.dw) * (g.sw == 1 ? 4 : 2);
    // The pair plane's padding rows are pairs of zeros for every plane:
    // written once, then only the rows of the image are paired per plane.
    if (g.sw == 1) std::fill(pp, acc, std::int32_t{0});
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t ch = 0; ch < g.c; ++ch) {
            const std::int8_t* xc = x + (n * g.c + ch) * in_plane;
            for (std::int64_t r = 0; r < g.h; ++r) {
                std::int16_t* d = xp + (r + g.pt) * xs + g.pl;
                const std::int8_t* s = xc + r * g.w;
                std::int64_t c = 0;
                for (; c + 16 <= g.w; c += 16)
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c),
                                        _mm256_cvtepi8_epi16(_mm_loadu_si128(
                                            reinterpret_cast<const __m128i*>(s + c))));
                for (; c < g.w; ++c) d[c] = s[c];
            }
            const std::int32_t* src = pp;
            const std::int64_t rs = xs;  // int32 per row of the pair plane
            if (g.sw == 1) {
                // Pairs (x[c], x[c + dw]) of the image's rows, 16 at a time
                // (the unpacks work within 128-bit lanes: two permutes put
                // the pairs in order), then 8; within the row.
                const std::int64_t cols = (xs - g.dw) / 8 * 8;
                for (std::int64_t r = g.pt; r < g.pt + g.h; ++r) {
                    const std::int16_t* s = xp + r * xs;
                    std::int32_t* d = pp + r * xs;
                    std::int64_t c = 0;
                    for (; c + 16 <= cols; c += 16) {
                        const __m256i a =
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c));
                        const __m256i b =
                            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c + g.dw));
                        const __m256i lo = _mm256_unpacklo_epi16(a, b);  // pairs 0-3 | 8-11
                        const __m256i hi = _mm256_unpackhi_epi16(a, b);  // pairs 4-7 | 12-15
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c),
                                            _mm256_permute2x128_si256(lo, hi, 0x20));
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c + 8),
                                            _mm256_permute2x128_si256(lo, hi, 0x31));
                    }
                    for (; c < cols; c += 8) {
                        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + c));
                        const __m128i b =
                            _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + c + g.dw));
                        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + c),
                                         _mm_unpacklo_epi16(a, b));
                        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + c + 4),
                                         _mm_unpackhi_epi16(a, b));
                    }
                }
            }
            // This plane's weight pair per term (toff: the terms' offsets).
            const std::int16_t* wt = w.taps.data() + ch * g.kh * kwp;
            for (std::int64_t i = 0, t = 0; i < g.kh; ++i)
                for (std::int64_t j = 0; j < g.kw; j += step, ++t) {
                    std::int32_t wpair;
                    if (pairs)
                        std::memcpy(&wpair, wt + i * kwp + j, 4);
                    else
                        wpair = static_cast<std::uint16_t>(wt[i * kwp + j]);
                    wv[t] = _mm256_set1_epi32(wpair);
                    wp32[t] = wpair;
                }
#if defined(__AVX512BW__)
            // AVX-512, vertical dilation 1: blocks of rows x vectors
            // (dw_plane512).  4 bytes per output pixel in either plane read.
            if constexpr (std::is_base_of_v<xsimd::avx512bw, A>) {
                if (g.dh == 1) {
                    const std::int64_t bytes = g.sw == 1 ? 4 : 2;
                    d8::dw_plane512<A>(g.sw == 1 ? reinterpret_cast<const char*>(src)
                                                 : reinterpret_cast<const char*>(xp),
                                       xs * bytes, g, terms / g.kh, wp32, toff, acc);
                    sink(n, ch, 0, acc, plane);
                    continue;
                }
            }
#endif
            const std::int64_t tpr = terms / g.kh;  // terms per tap row
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                std::int32_t* ar = acc + oh * g.ow;
                // The terms of the tap rows that read the image (the rest: padding).
                const auto [i0, i1] = dw_image_tap_rows(g, oh);
                const std::int64_t t0 = i0 * tpr, t1 = i1 * tpr;
                // 4 bytes per output pixel in either plane read.
                const char* rowp = g.sw == 1 ? reinterpret_cast<const char*>(src + oh * g.sh * rs)
                                             : reinterpret_cast<const char*>(xp + oh * g.sh * xs);
                std::int64_t ow0 = 0;
#if defined(__AVX512BW__)
                // AVX-512: 16 pixels per vector, 64, 32 or 16 per pass over
                // the taps (whole vectors only: the reads stay where the
                // 8-pixel loop's do).
                if constexpr (std::is_base_of_v<xsimd::avx512bw, A>) {
                    for (; ow0 + 64 <= g.ow; ow0 += 64) {
                        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
                        const char* p = rowp + ow0 * 4;
                        for (std::int64_t t = t0; t < t1; ++t) {
                            const char* q = p + toff[t];
                            const __m512i wt =
                                _mm512_broadcast_i32x4(_mm256_castsi256_si128(wv[t]));
                            s0 = d8::madd_acc512<A>(s0, _mm512_loadu_si512(q), wt);
                            s1 = d8::madd_acc512<A>(s1, _mm512_loadu_si512(q + 64), wt);
                            s2 = d8::madd_acc512<A>(s2, _mm512_loadu_si512(q + 128), wt);
                            s3 = d8::madd_acc512<A>(s3, _mm512_loadu_si512(q + 192), wt);
                        }
                        _mm512_storeu_si512(ar + ow0, s0);
                        _mm512_storeu_si512(ar + ow0 + 16, s1);
                        _mm512_storeu_si512(ar + ow0 + 32, s2);
                        _mm512_storeu_si512(ar + ow0 + 48, s3);
                    }
                    for (; ow0 + 32 <= g.ow; ow0 += 32) {
                        __m512i s0 = _mm512_setzero_si512(), s1 = s0;
                        const char* p = rowp + ow0 * 4;
                        for (std::int64_t t = t0; t < t1; ++t) {
                            const char* q = p + toff[t];
                            const __m512i wt =
                                _mm512_broadcast_i32x4(_mm256_castsi256_si128(wv[t]));
                            s0 = d8::madd_acc512<A>(s0, _mm512_loadu_si512(q), wt);
                            s1 = d8::madd_acc512<A>(s1, _mm512_loadu_si512(q + 64), wt);
                        }
                        _mm512_storeu_si512(ar + ow0, s0);
                        _mm512_storeu_si512(ar + ow0 + 16, s1);
                    }
                    for (; ow0 + 16 <= g.ow; ow0 += 16) {
                        __m512i s0 = _mm512_setzero_si512();
                        const char* p = rowp + ow0 * 4;
                        for (std::int64_t t = t0; t < t1; ++t)
                            s0 = d8::madd_acc512<A>(
                                s0, _mm512_loadu_si512(p + toff[t]),
                                _mm512_broadcast_i32x4(_mm256_castsi256_si128(wv[t])));
                        _mm512_storeu_si512(ar + ow0, s0);
                    }
                }
#endif
                // 32 pixels per pass over the taps: four vpmaddwd per weight
                // pair and tap offset loaded (the loads, not the multiplies,
                // bound the 16-pixel loop).
                for (; ow0 + 32 <= g.ow; ow0 += 32) {
                    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
                    const char* p = rowp + ow0 * 4;
                    for (std::int64_t t = t0; t < t1; ++t) {
                        const __m256i* q = reinterpret_cast<const __m256i*>(p + toff[t]);
                        const __m256i wt = wv[t];
                        s0 = d8::madd_acc<A>(s0, _mm256_loadu_si256(q), wt);
                        s1 = d8::madd_acc<A>(s1, _mm256_loadu_si256(q + 1), wt);
                        s2 = d8::madd_acc<A>(s2, _mm256_loadu_si256(q + 2), wt);
                        s3 = d8::madd_acc<A>(s3, _mm256_loadu_si256(q + 3), wt);
                    }
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0), s0);
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0 + 8), s1);
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0 + 16), s2);
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0 + 24), s3);
                }
                for (; ow0 + 16 <= g.ow; ow0 += 16) {
                    __m256i s0 = _mm256_setzero_si256(), s1 = s0;
                    const char* p = rowp + ow0 * 4;
                    for (std::int64_t t = t0; t < t1; ++t) {
                        const __m256i* q = reinterpret_cast<const __m256i*>(p + toff[t]);
                        s0 = d8::madd_acc<A>(s0, _mm256_loadu_si256(q), wv[t]);
                        s1 = d8::madd_acc<A>(s1, _mm256_loadu_si256(q + 1), wv[t]);
                    }
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0), s0);
                    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0 + 8), s1);
                }
                for (; ow0 < g.ow; ow0 += 8) {
                    __m256i s0 = _mm256_setzero_si256();
                    const char* p = rowp + ow0 * 4;
                    for (std::int64_t t = t0; t < t1; ++t)
                        s0 = d8::madd_acc<A>(
                            s0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + toff[t])),
                            wv[t]);
                    if (ow0 + 8 <= g.ow) {
                        _mm256_storeu_si256(reinterpret_cast<__m256i*>(ar + ow0), s0);
                    } else {
                        alignas(32) std::int32_t t[8];
                        _mm256_store_si256(reinterpret_cast<__m256i*>(t), s0);
                        for (std::int64_t b = 0; ow0 + b < g.ow; ++b) ar[ow0 + b] = t[b];
                    }
                }
            }
            sink(n, ch, 0, acc, plane);
        }
}
#endif
}  // namespace litegraph::kernels::detail
