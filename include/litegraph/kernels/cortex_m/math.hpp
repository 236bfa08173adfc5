// The math layer under the Cortex-M DSP kernels: the ARMv7E-M SIMD
// instructions the kernels are written with, through the compiler's ACLE
// intrinsics (<arm_acle.h>) when __ARM_FEATURE_DSP is set, and as portable
// C++ with the same results everywhere else (so the kernels build and are
// tested on the desktop too).  All values are bit patterns in 32-bit words:
// int16x2 = two int16 lanes, low lane in bits 0..15.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define LITEGRAPH_CORTEX_M_DSP 1
#else
#define LITEGRAPH_CORTEX_M_DSP 0
#endif

namespace litegraph::kernels::cortex_m {

/// Whether the kernels run on the DSP instructions (else on the portable
/// fallback, correct but slow: the dispatch only picks them on the target).
inline constexpr bool dsp = LITEGRAPH_CORTEX_M_DSP != 0;

/// Four int8 at p (any alignment: ARMv7-M loads unaligned words).
inline std::uint32_t load_q7x4(const std::int8_t* p) noexcept {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
}
/// Two int16 at p (any alignment) as an int16x2.
inline std::uint32_t load_q15x2(const std::int16_t* p) noexcept {
    std::uint32_t w;
    std::memcpy(&w, p, 4);
    return w;
}
/// Four int8 (a word) to p (any alignment).
inline void store_q7x4(std::int8_t* p, std::uint32_t v) noexcept {
    std::memcpy(p, &v, 4);
}
/// An int16x2 to p (any alignment).
inline void store_q15x2(std::int16_t* p, std::uint32_t v) noexcept {
    std::memcpy(p, &v, 4);
}

#if LITEGRAPH_CORTEX_M_DSP
/// Bytes 0 and 2 of w sign-extended to an int16x2 (SXTB16).
inline std::uint32_t sxtb16(std::uint32_t w) noexcept {
    return static_cast<std::uint32_t>(__sxtb16(static_cast<std::int32_t>(w)));
}
/// Bytes 1 and 3 of w sign-extended to an int16x2 (SXTB16 w, ROR #8).  ACLE
/// has no rotated form and GCC 12 does not fold a rotate into __sxtb16, so
/// this one instruction is written out (not volatile: it schedules freely).
inline std::uint32_t sxtb16_ror8(std::uint32_t w) noexcept {
    std::uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
    return r;
}
/// acc + a.lo * b.lo + a.hi * b.hi (SMLAD, the dual 16-bit MAC).
inline std::int32_t smlad(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return __smlad(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), acc);
}
/// a.lo * b.lo + a.hi * b.hi (SMUAD).
inline std::int32_t smuad(std::uint32_t a, std::uint32_t b) noexcept {
    return __smuad(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b));
}
/// acc + a.lo * b.lo (SMLABB).
inline std::int32_t smlabb(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return __smlabb(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), acc);
}
/// acc + a.lo * b.hi (SMLABT).
inline std::int32_t smlabt(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return __smlabt(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), acc);
}
/// acc + a.hi * b.lo (SMLATB).
inline std::int32_t smlatb(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return __smlatb(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), acc);
}
/// acc + a.hi * b.hi (SMLATT).
inline std::int32_t smlatt(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return __smlatt(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), acc);
}
#else
namespace detail {
inline std::int32_t lane(std::uint32_t w, int i) noexcept {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(w >> (16 * i)));
}
inline std::uint32_t pack(std::int32_t lo, std::int32_t hi) noexcept {
    return (static_cast<std::uint32_t>(lo) & 0xFFFFu) | (static_cast<std::uint32_t>(hi) << 16);
}
inline std::int32_t byte(std::uint32_t w, int i) noexcept {
    return static_cast<std::int8_t>(static_cast<std::uint8_t>(w >> (8 * i)));
}
inline std::int32_t wrap_add(std::int32_t a, std::int64_t b) noexcept {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}
}  // namespace detail
inline std::uint32_t sxtb16(std::uint32_t w) noexcept {
    return detail::pack(detail::byte(w, 0), detail::byte(w, 2));
}
inline std::uint32_t sxtb16_ror8(std::uint32_t w) noexcept {
    return detail::pack(detail::byte(w, 1), detail::byte(w, 3));
}
inline std::int32_t smlad(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    const std::int64_t p = std::int64_t{detail::lane(a, 0)} * detail::lane(b, 0) +
                           std::int64_t{detail::lane(a, 1)} * detail::lane(b, 1);
    return detail::wrap_add(acc, p);
}
inline std::int32_t smuad(std::uint32_t a, std::uint32_t b) noexcept {
    return smlad(a, b, 0);
}
inline std::int32_t smlabb(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return detail::wrap_add(acc, std::int64_t{detail::lane(a, 0)} * detail::lane(b, 0));
}
inline std::int32_t smlabt(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return detail::wrap_add(acc, std::int64_t{detail::lane(a, 0)} * detail::lane(b, 1));
}
inline std::int32_t smlatb(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return detail::wrap_add(acc, std::int64_t{detail::lane(a, 1)} * detail::lane(b, 0));
}
inline std::int32_t smlatt(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    return detail::wrap_add(acc, std::int64_t{detail::lane(a, 1)} * detail::lane(b, 1));
}
#endif

#if LITEGRAPH_CORTEX_M_DSP
/// Low halves of lo and hi as an int16x2 (PKHBT lo, hi, LSL #16).  Written
/// out: GCC 12 makes two or three instructions of the C++ form when lo or
/// hi comes from an intrinsic (not volatile: it schedules freely).
inline std::uint32_t pack_lo(std::uint32_t lo, std::uint32_t hi) noexcept {
    std::uint32_t r;
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(lo), "r"(hi));
    return r;
}
/// High halves of lo and hi as an int16x2 (PKHTB hi, lo, ASR #16).
inline std::uint32_t pack_hi(std::uint32_t lo, std::uint32_t hi) noexcept {
    std::uint32_t r;
    __asm__("pkhtb %0, %2, %1, asr #16" : "=r"(r) : "r"(lo), "r"(hi));
    return r;
}
#else
inline std::uint32_t pack_lo(std::uint32_t lo, std::uint32_t hi) noexcept {
    return (lo & 0xFFFFu) | (hi << 16);
}
inline std::uint32_t pack_hi(std::uint32_t lo, std::uint32_t hi) noexcept {
    return (lo >> 16) | (hi & 0xFFFF0000u);
}
#endif
/// Two int16 (low, high) as an int16x2.
inline std::uint32_t pack_q15(std::int32_t lo, std::int32_t hi) noexcept {
    return (static_cast<std::uint32_t>(lo) & 0xFFFFu) | (static_cast<std::uint32_t>(hi) << 16);
}

/// acc + the dot product of four int8 pairs (a, b words of four int8):
/// both operands unpacked the same way (bytes 0,2 and 1,3), so no reorder.
inline std::int32_t dot_q7x4(std::uint32_t a, std::uint32_t b, std::int32_t acc) noexcept {
    acc = smlad(sxtb16(a), sxtb16(b), acc);
    return smlad(sxtb16_ror8(a), sxtb16_ror8(b), acc);
}

}  // namespace litegraph::kernels::cortex_m
