// The desktop int8 conv kernels: AVX2 loops over weights packed once per op
// node, bit-exact with the reference kernels::conv2d_int8 (int32
// accumulation of int8 products is exact in any order).
//
//  - Ungrouped convs (the GEMM form): output channels x pixels, a 4 x 16
//    register tile.  Operands are widened to int16 and multiplied in pairs
//    of taps by vpmaddwd (s16 x s16 -> s32 pair sums, no saturation: the
//    u8 x s8 vpmaddubsw would saturate its int16 pair sums, 255 * 127 * 2 >
//    32767).  The filter is packed once (conv_int8_weights): int16 pairs of
//    taps, 4 channels interleaved; each block of 16 pixels' patches is
//    packed per run as int16 pairs of taps.  Pointwise convs read the
//    input rows directly; other convs first copy each image into a
//    zero-padded int8 buffer, so a tap of 16 pixels is one vector load
//    (horizontal stride 1 or 2; a blend per output row a block spans, a
//    gather for larger strides) with no bound checks.
//  - Depthwise convs (groups == C == OC, horizontal stride 1 or 2): each
//    input plane is widened once into a zero-padded int16 plane (stride 1:
//    a plane of int16 pairs (x[c], x[c + dw])), so every tap is in range;
//    vpmaddwd of a pair of horizontal taps per 8 output pixels, 32 pixels
//    (four accumulators) per pass over the taps where the row has them.
//  - The requantize epilogue (rescale -> bias -> activation or residual add
//    -> round and saturate to int8) in vectors of the unit's architecture,
//    the chain's arithmetic in its order (bit for bit chain::emit and
//    cortex_m::requantize_run): int8_requant_entry, one per int8-output
//    chain that vectorises; int8_float_entry, one per float-output chain
//    (store, add_with, mul_with); the SE gate's int8 plane
//    (plane_quantize_vec) and quantize_int8's loop (quantize_int8_vec_of),
//    32 results per store on AVX2.
//
//  - VNNI (slots avx512vnni and avxvnni, architectures simd::has_vnni): the GEMM form
//    on vpdpbusd (u8 x s8, four products per int32 lane): activations
//    shifted to u8 (x + 128: the padded image is kept as u8, pointwise
//    inputs shift while packing), four taps of 16 pixels per vector, the
//    filter packed once as quads of int8 taps 8 channels interleaved
//    (int8_pack::quads) with corr[oc] = 128 * sum(f[oc]) subtracted from
//    each sum; 8 channels x 32 pixels per tile (avxvnni: 4 x 16).  The
//    depthwise and pairs loops fuse vpmaddwd + vpaddd into vpdpwssd there;
//    on AVX-512 the depthwise loops run 16 pixels per vector.  Exact: the
//    same int32 sums as the reference.
//
// Dispatch (kernels/simd.hpp): the kernels are templates on the arch unit's
// architecture; simd/arch_unit.hpp puts int8_impl_of<A>() in every slot's
// table (avx2 and avx512 run the AVX2 loops, avxvnni and avx512vnni the
// VNNI GEMM; its
// `pack` says how the caller packs the filter).  The baseline (SSE2) has no
// fast int8 kernel: int8_for() is then empty and the caller runs the
// reference.
// The Cortex-M build never sees any of it (no LITEGRAPH_SIMD_X86).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/kernels/simd.hpp"

#if defined(LITEGRAPH_SIMD_X86) && defined(__AVX2__)
#include <immintrin.h>
#define LITEGRAPH_INT8_AVX2 1
#endif

namespace litegraph::kernels {

/// Output channels x pixels of the int8 GEMM tile, and the most tiles of
/// pixels a run of the GEMM form packs at once (what one sink call gets).
inline constexpr std::int64_t int8_mr = 4, int8_nr = 16, int8_gemm_blocks = 16;
/// Bytes of packed patches one run of the GEMM form aims at (in L1).
inline constexpr std::int64_t int8_gemm_panel_bytes = 32 * 1024;
/// Blocks of 16 pixels per run for kq pairs of taps: as many as fit
/// int8_gemm_panel_bytes, 4 to int8_gemm_blocks (a short K gets long runs:
/// fewer, longer sink calls per tile of channels).
constexpr std::int64_t int8_gemm_run_blocks(std::int64_t kq) noexcept {
    const std::int64_t b = int8_gemm_panel_bytes / (kq * int8_nr * 4);
    return b < 4 ? 4 : b > int8_gemm_blocks ? int8_gemm_blocks : b;
}

/// The most taps of a depthwise window the fast kernel takes (11 x 11).
inline constexpr std::int64_t int8_dw_max_taps = 121;

/// Whether the fast int8 kernels compute conv `g` (else the reference does):
/// ungrouped convs, and depthwise ones with horizontal stride 1 or 2 and at
/// most int8_dw_max_taps taps.
inline bool conv_int8_fast_covers(const conv_geometry& g) noexcept {
    if (g.groups == 1) return true;
    return g.is_depthwise() && (g.sw == 1 || g.sw == 2) && g.kh * g.kw <= int8_dw_max_taps;
}

/// Output channels of the VNNI GEMM tile (its pixels: int8_nr per block,
/// two blocks per pass).
inline constexpr std::int64_t int8_vnni_mr = 8;

/// How an ungrouped filter is packed: int16 pairs of taps (vpmaddwd), or
/// quads of int8 taps (vpdpbusd, the VNNI slots).
enum class int8_pack : std::uint8_t { pairs, quads };

/// A filter [OC, C/groups, KH, KW] int8 prepared once for the fast kernels.
///  - groups 1, pairs: kp = K rounded up to even (K = C * KH * KW);
///    words[((ob * kp/2) + q) * 4 + r] = the int16 pair (f[oc][2q],
///    f[oc][2q + 1]) of channel oc = 4 * ob + r (zero past OC or K).
///  - groups 1, quads: kp = K rounded up to a multiple of 4; words[((ob *
///    kp/4) + q) * 8 + r] = the four int8 taps f[oc][4q .. 4q + 3] of
///    channel oc = 8 * ob + r (zero past OC or K), and corr[oc] = 128 *
///    sum(f[oc]): the kernel multiplies activations shifted to u8 (x + 128),
///    so it subtracts corr from each sum.
///  - depthwise: taps[(c * KH + i) * kwp + j] = f[c][0][i][j] as int16,
///    kwp = KW rounded up to even (zero past KW), so two adjacent taps are
///    one int32 pair.
struct conv_int8_weights {
    std::int64_t oc = 0, c = 0, kh = 0, kw = 0, groups = 0;
    std::int64_t k = 0, kp = 0, kwp = 0;
    int8_pack pack = int8_pack::pairs;
    std::vector<std::int32_t> words;  // groups 1
    std::vector<std::int32_t> corr;   // groups 1, quads
    std::vector<std::int16_t> taps;   // depthwise

    conv_int8_weights() = default;
    conv_int8_weights(const conv_geometry& g, const std::int8_t* f,
                      int8_pack how = int8_pack::pairs)
        : oc(g.oc), c(g.c), kh(g.kh), kw(g.kw), groups(g.groups), pack(how) {
        if (g.groups == 1 && how == int8_pack::quads) {
            k = g.c * g.kh * g.kw;
            kp = (k + 3) / 4 * 4;
            const std::int64_t mr = int8_vnni_mr, blocks = (g.oc + mr - 1) / mr;
            words.assign(static_cast<std::size_t>(blocks * (kp / 4) * mr), 0);
            corr.assign(static_cast<std::size_t>(blocks * mr), 0);
            for (std::int64_t o = 0; o < g.oc; ++o) {
                std::int32_t sum = 0;
                for (std::int64_t q = 0; q < kp / 4; ++q) {
                    std::uint32_t word = 0;
                    for (std::int64_t j = 0; j < 4 && 4 * q + j < k; ++j) {
                        const std::int8_t v = f[o * k + 4 * q + j];
                        sum += v;
                        word |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(v)) << (8 * j);
                    }
                    words[static_cast<std::size_t>(((o / mr) * (kp / 4) + q) * mr + o % mr)] =
                        static_cast<std::int32_t>(word);
                }
                corr[static_cast<std::size_t>(o)] = 128 * sum;
            }
        } else if (g.groups == 1) {
            k = g.c * g.kh * g.kw;
            kp = (k + 1) / 2 * 2;
            const std::int64_t blocks = (g.oc + int8_mr - 1) / int8_mr;
            words.assign(static_cast<std::size_t>(blocks * (kp / 2) * int8_mr), 0);
            for (std::int64_t o = 0; o < g.oc; ++o)
                for (std::int64_t q = 0; q < kp / 2; ++q) {
                    const auto lo = static_cast<std::uint16_t>(f[o * k + 2 * q]);
                    const auto hi =
                        2 * q + 1 < k ? static_cast<std::uint16_t>(f[o * k + 2 * q + 1]) : 0u;
                    words[static_cast<std::size_t>(((o / int8_mr) * (kp / 2) + q) * int8_mr +
                                                   o % int8_mr)] =
                        static_cast<std::int32_t>(static_cast<std::uint32_t>(lo) |
                                                  (static_cast<std::uint32_t>(hi) << 16));
                }
        } else {
            kwp = (g.kw + 1) / 2 * 2;
            taps.assign(static_cast<std::size_t>(g.c * g.kh * kwp), 0);
            for (std::int64_t ch = 0; ch < g.c; ++ch)
                for (std::int64_t i = 0; i < g.kh; ++i)
                    for (std::int64_t j = 0; j < g.kw; ++j)
                        taps[static_cast<std::size_t>((ch * g.kh + i) * kwp + j)] =
                            f[(ch * g.kh + i) * g.kw + j];
        }
    }
    /// Whether these weights were prepared for (the filter geometry of) g,
    /// packed as `how`.
    bool fits(const conv_geometry& g, int8_pack how = int8_pack::pairs) const noexcept {
        return g.oc == oc && g.c == c && g.kh == kh && g.kw == kw && g.groups == groups &&
               (g.groups != 1 || pack == how);
    }
};

/// The vector requantize loop of one int8-output chain: out[i] =
/// sat8(round(act(acc[i] * m[oc] (* k[oc]) + b[oc]) (+ other[index + i]) *
/// inv)) for i < count; `index` is the flat output index of acc[0] (what
/// add_with reads Other at).
using int8_requant_fn = void (*)(const void* chain, std::int8_t* out, const std::int32_t* acc,
                                 std::int64_t count, std::int64_t oc, std::int64_t index);
struct int8_requant_entry {
    const void* key;  // &epilogue::chain_tag<Chain>
    int8_requant_fn run;
};

/// The vector loop of one float-output int8 chain (chain<rescale, bias,
/// ...> ending in store, add_with or gate<F, mul_with>): runs elements
/// [0, count - count % width) of chain::emit over int32 accumulators and
/// returns how many it ran.
using int8_float_fn = std::int64_t (*)(const void* chain, float* out, const std::int32_t* acc,
                                       std::int64_t count, epilogue::at a);
struct int8_float_entry {
    const void* key;  // &epilogue::chain_tag<Chain>
    int8_float_fn run;
};

/// quantize_int8's loop (kernels::quantize_int8: out[i] = sat8(round(x[i] *
/// (1 / step)))).
using quantize_int8_fn = void (*)(float step, const float* x, std::int8_t* out, std::int64_t n);

namespace detail {
/// One arch unit's int8 kernels (null members: not there).
struct int8_impl {
    void (*gemm)(const conv_geometry&, const std::int8_t*, const conv_int8_weights&, std::int64_t*,
                 int32_sink_ref) = nullptr;
    void (*depthwise)(const conv_geometry&, const std::int8_t*, const conv_int8_weights&,
                      std::int64_t*, int32_sink_ref) = nullptr;
    const int8_requant_entry* requants = nullptr;
    std::int64_t requant_count = 0;
    const int8_float_entry* floats = nullptr;
    std::int64_t float_count = 0;
    quantize_int8_fn quantize = nullptr;
    epilogue::plane_quantize_fn plane_quantize = nullptr;  // mul_plane::quantize_run
    int8_pack pack = int8_pack::pairs;                     // what gemm reads
};

/// int64 words of scratch the fast kernels need for g.
/// (Either packing: the larger of the two forms' needs.)
inline std::int64_t conv_int8_fast_scratch_words(const conv_geometry& g) noexcept {
    if (g.groups == 1) {
        // The panel and accumulators; not pointwise: the tap offsets and the
        // zero-padded image with int8_gemm_detail::pad_slack bytes either side.
        const std::int64_t k = g.c * g.kh * g.kw, kq = (k + 1) / 2, kq4 = (k + 3) / 4;
        const std::int64_t words =
            std::max(int8_gemm_run_blocks(kq) * (kq * int8_nr / 2 + int8_mr * int8_nr / 2),
                     int8_gemm_run_blocks(kq4) * (kq4 * int8_nr / 2 + int8_vnni_mr * int8_nr / 2)) +
            8;
        if (g.is_pointwise()) return words;
        const std::int64_t padded = g.c * (g.h + g.pt + g.pb) * (g.w + g.pl + g.pr) + 2 * 64;
        return words + k + (padded + 7) / 8;
    }
    const std::int64_t hp = g.h + g.pt + g.pb, xs = g.w + g.pl + g.pr + 16 + g.dw;
    // int16 plane, int32 pair plane, int32 output plane (+ a vector of slack each).
    return (hp * xs + 16 + 3) / 4 + (hp * xs + 16) / 2 + (g.oh * g.ow + 16) / 2 + 8;
}

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
    std::int64_t toff[int8_dw_max_taps];
    std::fill(xp, xp + hp * xs + 16, std::int16_t{0});
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
                // Pairs (x[c], x[c + dw]) of the image's rows, 8 at a time; the
                // last vector may read past a row into the next or the slack.
                const std::int64_t cols = (xs - g.dw) / 8 * 8;
                for (std::int64_t r = g.pt; r < g.pt + g.h; ++r) {
                    const std::int16_t* s = xp + r * xs;
                    std::int32_t* d = pp + r * xs;
                    for (std::int64_t c = 0; c < cols; c += 8) {
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
            // The taps as terms: a byte offset into the plane read and a
            // weight pair, so the pixel loop is one loop of loads and vpmaddwd.
            const std::int16_t* wt = w.taps.data() + ch * g.kh * kwp;
            std::int64_t terms = 0;
            for (std::int64_t i = 0; i < g.kh; ++i)
                for (std::int64_t j = 0; j < g.kw; j += step, ++terms) {
                    std::int32_t wpair;
                    if (pairs)
                        std::memcpy(&wpair, wt + i * kwp + j, 4);
                    else
                        wpair = static_cast<std::uint16_t>(wt[i * kwp + j]);
                    wv[terms] = _mm256_set1_epi32(wpair);
                    toff[terms] = (i * g.dh * xs + j * g.dw) * (g.sw == 1 ? 4 : 2);
                }
            for (std::int64_t oh = 0; oh < g.oh; ++oh) {
                std::int32_t* ar = acc + oh * g.ow;
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
                        for (std::int64_t t = 0; t < terms; ++t) {
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
                        for (std::int64_t t = 0; t < terms; ++t) {
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
                        for (std::int64_t t = 0; t < terms; ++t)
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
                    for (std::int64_t t = 0; t < terms; ++t) {
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
                    for (std::int64_t t = 0; t < terms; ++t) {
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
                    for (std::int64_t t = 0; t < terms; ++t)
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

#if !defined(LITEGRAPH_SCALAR_SIMD)
/// epilogue::saturate_int8 on a vector (the same value for every float):
/// NaN to 0, clamped to +-256 (which changes no result), truncated, plus the
/// rounding of the exact fraction f = c - trunc(c): trunc(2 f) is +-1 when
/// |f| >= 0.5, else 0 (2 f is exact too), then clamped to [-128, 127].
/// round_int8_vec is that before the last clamp (in [-257, 257]: the
/// saturating packs of store_rounded_int8 clamp it).
template <class A>
inline xsimd::batch<std::int32_t, A> round_int8_vec(xsimd::batch<float, A> v) noexcept {
    using F = xsimd::batch<float, A>;
    using I = xsimd::batch<std::int32_t, A>;
    const F c = xsimd::select(v == v, xsimd::min(xsimd::max(v, F(-256.f)), F(256.f)), F(0.f));
    const I t = xsimd::batch_cast<std::int32_t>(c);  // truncated
    const F frac = c - xsimd::batch_cast<float>(t);
    return t + xsimd::batch_cast<std::int32_t>(frac + frac);
}
template <class A>
inline xsimd::batch<std::int32_t, A> saturate_int8_vec(xsimd::batch<float, A> v) noexcept {
    using I = xsimd::batch<std::int32_t, A>;
    return xsimd::min(xsimd::max(round_int8_vec<A>(v), I(-128)), I(127));
}

/// Eight int32 in [-128, 127] (or more: saturated) stored as int8.
template <class A>
inline void store_int8_vec(std::int8_t* o, xsimd::batch<std::int32_t, A> q) noexcept {
#if defined(LITEGRAPH_INT8_AVX2) && defined(__AVX512F__)
    if constexpr (xsimd::batch<std::int32_t, A>::size == 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm512_cvtsepi32_epi8(q));  // saturating
        return;
    }
#endif
#if defined(LITEGRAPH_INT8_AVX2)
    if constexpr (xsimd::batch<std::int32_t, A>::size == 8) {
        const __m256i r = q;
        const __m128i p16 =
            _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(o), _mm_packs_epi16(p16, p16));
        return;
    }
#endif
    constexpr std::size_t w = xsimd::batch<std::int32_t, A>::size;
    alignas(64) std::int32_t r[w];
    q.store_aligned(r);
    for (std::size_t j = 0; j < w; ++j) o[j] = static_cast<std::int8_t>(r[j]);
}

/// out[j] = saturate_int8(f(i)[j - i]) for the vectors of floats f(i),
/// i = 0, w, 2w, ... while a whole vector fits in n; returns the elements
/// written (the caller writes the tail).  AVX2: four vectors per store.
template <class A, class Fn>
inline std::int64_t store_rounded_int8(std::int8_t* out, std::int64_t n, Fn&& f) noexcept {
    constexpr std::int64_t w = static_cast<std::int64_t>(xsimd::batch<float, A>::size);
    std::int64_t i = 0;
#if defined(LITEGRAPH_INT8_AVX2)
    if constexpr (w == 8) {
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (; i + 32 <= n; i += 32) {
            const __m256i q0 = round_int8_vec<A>(f(i)), q1 = round_int8_vec<A>(f(i + 8));
            const __m256i q2 = round_int8_vec<A>(f(i + 16)), q3 = round_int8_vec<A>(f(i + 24));
            // Saturating packs (in 128-bit lanes), then the dwords in order.
            const __m256i b =
                _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                                _mm256_permutevar8x32_epi32(b, order));
        }
    }
#endif
    for (; i + w <= n; i += w) store_int8_vec<A>(out + i, saturate_int8_vec<A>(f(i)));
    return i;
}

/// The stages of chain stages `st` between the bias and the terminal (an
/// activation, add_with) on a vector at `a`.
template <class V, class Tuple>
inline V int8_middle_vec(const Tuple& st, V v, const epilogue::at& a) {
    std::apply(
        [&v, &a](const auto&... s) {
            (
                [&v, &a](const auto& stage) {
                    using S = std::decay_t<decltype(stage)>;
                    if constexpr (!std::is_same_v<S, epilogue::rescale> &&
                                  !std::is_same_v<S, epilogue::bias> &&
                                  !epilogue::terminal_stage<S>)
                        v = stage.vec(v, a);
                }(s),
                ...);
        },
        st);
    return v;
}

/// The vector requantize of the int8 chain C = chain<rescale, bias, [act |
/// add_with], quantize_store> (int8_requant_fn): the arithmetic of
/// chain::emit (requantize_run) in its order, the tail through chain::emit.
template <class A, class C>
void requant_vec(const void* cp, std::int8_t* out, const std::int32_t* acc, std::int64_t count,
                 std::int64_t oc, std::int64_t index) {
    using F = xsimd::batch<float, A>;
    using I = xsimd::batch<std::int32_t, A>;
    const C& c = *static_cast<const C*>(cp);
    const auto& st = c.stages;
    constexpr std::size_t last = std::tuple_size_v<std::decay_t<decltype(st)>> - 1;
    const F m(std::get<0>(st).multiplier[oc]);
    const auto& b = std::get<1>(st);
    const F bv(b.values[oc]);
    const bool scaled = b.scale != nullptr;
    const F k(scaled ? b.scale[oc] : 1.f);
    const F inv(std::get<last>(st).inv_scale);
    const std::int64_t i = store_rounded_int8<A>(out, count, [&](std::int64_t j) {
        F v = xsimd::batch_cast<float>(I::load_unaligned(acc + j)) * m;
        v = scaled ? v * k + bv : v + bv;
        return int8_middle_vec(st, v, epilogue::at{0, oc, index + j}) * inv;
    });
    // The tail in the chain's scalar loop (the same bytes; a vector would
    // read Other past its end); its `out` is the output's start.
    if (i < count) c.emit(out - index, acc + i, count - i, epilogue::at{0, oc, index + i});
}

/// The vector loop of a float-output int8 chain C (int8_float_fn): the
/// arithmetic of chain::emit over int32 accumulators in its order, elements
/// [0, count - count % width).
template <class A, class C>
std::int64_t int8_float_vec(const void* cp, float* out, const std::int32_t* acc, std::int64_t count,
                            epilogue::at a) {
    using F = xsimd::batch<float, A>;
    using I = xsimd::batch<std::int32_t, A>;
    constexpr std::int64_t w = static_cast<std::int64_t>(F::size);
    const C& c = *static_cast<const C*>(cp);
    const auto& st = c.stages;
    constexpr std::size_t last = std::tuple_size_v<std::decay_t<decltype(st)>> - 1;
    const F m(std::get<0>(st).multiplier[a.channel]);
    const auto& b = std::get<1>(st);
    const F bv(b.values[a.channel]);
    const bool scaled = b.scale != nullptr;
    const F k(scaled ? b.scale[a.channel] : 1.f);
    const std::int64_t vend = count - count % w;
    for (std::int64_t i = 0; i < vend; i += w) {
        const epilogue::at ai{a.image, a.channel, a.index + i};
        F v = xsimd::batch_cast<float>(I::load_unaligned(acc + i)) * m;
        v = scaled ? v * k + bv : v + bv;
        v = int8_middle_vec(st, v, ai);
        using T = std::tuple_element_t<last, std::decay_t<decltype(st)>>;
        if constexpr (epilogue::terminal_stage<T>)
            std::get<last>(st).write_vec(out, ai, v);
        else
            v.store_unaligned(out + ai.index);
    }
    return vend;
}

/// kernels::quantize_int8 in vectors of A (quantize_int8_fn): the same bytes.
template <class A>
void quantize_int8_vec_of(float step, const float* xs, std::int8_t* out, std::int64_t n) noexcept {
    using F = xsimd::batch<float, A>;
    const F inv(1.f / step);
    std::int64_t i = store_rounded_int8<A>(
        out, n, [&](std::int64_t j) { return F::load_unaligned(xs + j) * inv; });
    const float s = 1.f / step;
    for (; i < n; ++i) out[i] = epilogue::saturate_int8(xs[i] * s);
}

/// mul_plane::write_quantized's loop in vectors of A (plane_quantize_fn):
/// out[i] = sat8(round((other[i] * v) * inv)), the same bytes.
template <class A>
void plane_quantize_vec(const float* other, float v, float inv, std::int8_t* out,
                        std::int64_t n) noexcept {
    using F = xsimd::batch<float, A>;
    const F vv(v), iv(inv);
    std::int64_t i = store_rounded_int8<A>(
        out, n, [&](std::int64_t j) { return (F::load_unaligned(other + j) * vv) * iv; });
    for (; i < n; ++i) {
        const float p = other[i] * v;
        out[i] = epilogue::saturate_int8(p * inv);
    }
}
#endif

#if defined(LITEGRAPH_SIMD_X86)
/// kernels::quantize_int8 (out[i] = saturate_int8(x[i] * (1 / step))) in
/// vectors of the compile-time architecture: the same bytes (quantize_int8
/// runs the active arch unit's, int8_impl::quantize, when there is one).
inline void quantize_int8_vec(float step, const float* xs, std::int8_t* out,
                              std::int64_t n) noexcept {
    quantize_int8_vec_of<simd::default_arch>(step, xs, out, n);
}
#endif

/// The kernels of architecture A (an arch unit's table entry).
template <class A>
constexpr int8_impl int8_impl_of(const int8_requant_entry* requants = nullptr,
                                 std::int64_t count = 0, const int8_float_entry* floats = nullptr,
                                 std::int64_t float_count = 0) {
#if defined(LITEGRAPH_INT8_VNNI)
    if constexpr (simd::has_vnni<A>)
        return {&conv_int8_gemm_vnni<A>,
                &conv_int8_depthwise_avx2<A>,
                requants,
                count,
                floats,
                float_count,
                &quantize_int8_vec_of<A>,
                &plane_quantize_vec<A>,
                int8_pack::quads};
#endif
#if defined(LITEGRAPH_INT8_AVX2)
    return {&conv_int8_gemm_avx2<A>,
            &conv_int8_depthwise_avx2<A>,
            requants,
            count,
            floats,
            float_count,
            &quantize_int8_vec_of<A>,
            &plane_quantize_vec<A>,
            int8_pack::pairs};
#else
    (void)requants, (void)count, (void)floats, (void)float_count;
    return {};
#endif
}

/// The int8 kernels of a slot: its arch unit's, or the compile-time
/// architecture's (empty below AVX2; the VNNI GEMM where the flags give
/// VNNI, e.g. -march=native, whose build has no units).
inline int8_impl int8_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i))
        if (t->int8) return *t->int8;
    if (i != simd::isa::baseline) return {};
#if defined(LITEGRAPH_INT8_VNNI)
    return int8_impl_of<simd::with_vnni<simd::default_arch>>();
#else
    return int8_impl_of<simd::default_arch>();
#endif
}

/// The vector requantize of chain type C for a slot, or null.
template <class C>
int8_requant_fn int8_requant_for(const int8_impl& impl) {
    for (std::int64_t e = 0; e < impl.requant_count; ++e)
        if (impl.requants[e].key == &epilogue::chain_tag<C>) return impl.requants[e].run;
    return nullptr;
}

/// The vector loop of float-output int8 chain type C for a slot, or null.
template <class C>
int8_float_fn int8_float_for(const int8_impl& impl) {
    for (std::int64_t e = 0; e < impl.float_count; ++e)
        if (impl.floats[e].key == &epilogue::chain_tag<C>) return impl.floats[e].run;
    return nullptr;
}
}  // namespace detail

}  // namespace litegraph::kernels
