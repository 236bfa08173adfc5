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
//    Tap rows that read only padding are skipped (dw_image_tap_rows: on a
//    plane of one row, four of a 5 x 5 window's five).
//    On AVX-512 (vertical dilation 1) in blocks of up to 4 output rows x 8
//    vectors of 16 pixels (dw_block512): each input row's vectors are
//    loaded once per horizontal term and multiplied into every output row
//    of the block that reads them.
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
//    depthwise and pairs loops fuse vpmaddwd + vpaddd into vpdpwssd there
//    (latency 5, two per cycle: the depthwise blocks' many accumulators
//    keep it busy).  Exact: the
//    same int32 sums as the reference.
//
//  - NEON (aarch64: the baseline neon, the slot neon_dotprod): the GEMM
//    form over the same quads of taps, signed activations (no shift, no
//    correction), sdot by lane where A has the dot product
//    (simd::has_dotprod), else smull and sadalp (conv_int8_neon.hpp).
//    Depthwise convs: a zero-padded int16 plane, smlal / smlal2 of 16
//    output pixels per pass over the taps (ld2 for stride 2), both slots.
//
// Dispatch (kernels/simd.hpp): the kernels are templates on the arch unit's
// architecture; simd/arch_unit.hpp puts int8_impl_of<A>() in every slot's
// table (avx2 and avx512 run the AVX2 loops, avxvnni and avx512vnni the
// VNNI GEMM, neon_dotprod the NEON GEMM on sdot; its
// `pack` says how the caller packs the filter).  The x86-64 baseline (SSE2)
// has no fast int8 kernel: int8_for() is then empty and the caller runs the
// reference; the aarch64 baseline (NEON) runs the NEON GEMM without sdot.
// The Cortex-M build never sees any of it (no LITEGRAPH_SIMD_X86 or
// LITEGRAPH_SIMD_ARM64).
//
// Files: kernels/conv_int8_pack.hpp (the packed filter, int8_impl, scratch),
// conv_int8_avx2.hpp (the AVX2 GEMM and the depthwise), conv_int8_vnni.hpp
// (the VNNI GEMM), conv_int8_neon.hpp (the NEON GEMM and depthwise), int8_requant.hpp
// (the vector epilogues); this header puts them in a slot's table
// (int8_impl_of) and picks a slot's (int8_for).
#pragma once

#include "litegraph/kernels/conv_int8_avx2.hpp"
#include "litegraph/kernels/conv_int8_neon.hpp"
#include "litegraph/kernels/conv_int8_pack.hpp"
#include "litegraph/kernels/conv_int8_vnni.hpp"
#include "litegraph/kernels/int8_requant.hpp"

namespace litegraph::kernels {
namespace detail {

/// The kernels of architecture A (an arch unit's table entry).
template <class A>
constexpr int8_impl int8_impl_of(const int8_requant_entry* requants = nullptr,
                                 std::int64_t count = 0, const int8_float_entry* floats = nullptr,
                                 std::int64_t float_count = 0) {
#if defined(LITEGRAPH_INT8_NEON) || defined(LITEGRAPH_INT8_AVX2)
    // The vector epilogues every fast slot has; then the slot's GEMM, its
    // depthwise kernel and the packing the GEMM reads.
    int8_impl r{};
    r.requants = requants, r.requant_count = count;
    r.floats = floats, r.float_count = float_count;
    r.quantize = &quantize_int8_vec_of<A>;
    r.plane_quantize = &plane_quantize_vec<A>;
#if defined(LITEGRAPH_INT8_NEON)
    r.gemm = &conv_int8_gemm_neon<A>;
    r.depthwise = &conv_int8_depthwise_neon<A>;
    r.pack = int8_pack::quads;
#else
    r.depthwise = &conv_int8_depthwise_avx2<A>;
    r.gemm = &conv_int8_gemm_avx2<A>;
    r.pack = int8_pack::pairs;
#if defined(LITEGRAPH_INT8_VNNI)
    if constexpr (simd::has_vnni<A>) {
        r.gemm = &conv_int8_gemm_vnni<A>;
        r.pack = int8_pack::quads;
    }
#endif
#endif
    return r;
#else
    (void)requants, (void)count, (void)floats, (void)float_count;
    return {};
#endif
}

/// The int8 kernels of a slot: its arch unit's, or the compile-time
/// architecture's (empty on x86 below AVX2; the VNNI GEMM where the flags
/// give VNNI, e.g. -march=native, whose build has no units; on aarch64 the
/// NEON GEMM, on sdot where the flags give the dot product).
inline int8_impl int8_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i))
        if (t->int8) return *t->int8;
    if (i != simd::isa::baseline) return {};
#if defined(LITEGRAPH_INT8_VNNI)
    return int8_impl_of<simd::with_vnni<simd::default_arch>>();
#elif defined(LITEGRAPH_INT8_NEON) && defined(__ARM_FEATURE_DOTPROD)
    return int8_impl_of<simd::with_dotprod<simd::default_arch>>();
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
