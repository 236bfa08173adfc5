// The one SIMD vocabulary the fast kernels use, and the run-time choice of
// instruction set.
//
// Vocabulary: a float vector of an xsimd architecture `A`
// (xsimd::batch<float, A>), or a one-lane scalar stand-in when xsimd supports
// nothing (microcontrollers), so the kernels always build.  `simd::vfloat` and
// `simd::width` are those of the compile-time architecture (`default_arch`:
// SSE2 by default on x86-64, AVX2 or AVX-512 with -march=native, NEON on ARM).
//
// Dispatch: the hot kernels are templates on the architecture (gemm.hpp,
// conv.hpp).  The header alone instantiates them for `default_arch` only, so a
// program of one translation unit runs exactly what its flags allow.  The
// slots above that baseline are the rows of kernels/isa_table.hpp.  A program
// that also compiles a slot's unit, src/simd/<slot>.cpp (with the row's flags;
// CMake: the litegraph_simd_units object library, or the installed package's
// litegraph::litegraph; meson: litegraph_dep), registers the same kernels for
// that slot's architecture, and every kernel call runs the widest slot this
// CPU has (`simd::active()`: CPUID on x86-64, HWCAP on aarch64 Linux, whose
// baseline is NEON).  LITEGRAPH_SIMD=sse2 (aarch64: neon) or a slot's name in
// the environment forces one (an error names a value that is unknown, not
// built into the program or missing on this CPU).  The kernels of different
// architectures are different template instantiations (the architecture is a
// template argument), so they never share a symbol.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "litegraph/kernels/isa_table.hpp"

// Cortex-M (and LITEGRAPH_NO_XSIMD): no vector unit xsimd knows, and a C
// library without posix_memalign, so xsimd is not included at all.
#if defined(LITEGRAPH_NO_XSIMD) || (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define LITEGRAPH_SCALAR_SIMD 1
#else
#include <xsimd/xsimd.hpp>
#if defined(XSIMD_NO_SUPPORTED_ARCHITECTURE)
#define LITEGRAPH_SCALAR_SIMD 1
#endif
#endif

#if !defined(LITEGRAPH_SCALAR_SIMD) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define LITEGRAPH_SIMD_X86 1
#endif

// 64-bit ARM Linux: NEON is the baseline (every aarch64 CPU has it); the
// kernel reads the CPU's optional features (HWCAP_ASIMDDP: the dot product)
// for the table's aarch64 rows.
#if !defined(LITEGRAPH_SCALAR_SIMD) && defined(__aarch64__) && defined(__linux__) && \
    (defined(__GNUC__) || defined(__clang__))
#include <sys/auxv.h>
#define LITEGRAPH_SIMD_ARM64 1
#endif

namespace litegraph::kernels::simd {

#if defined(LITEGRAPH_SCALAR_SIMD)
/// The architecture of the scalar stand-in.
struct scalar_arch {
    static constexpr const char* name() { return "scalar"; }
};
struct vfloat {
    static constexpr std::size_t size = 1;
    float v = 0.f;
    vfloat() = default;
    vfloat(float x) : v(x) {}  // NOLINT: broadcast, as xsimd::batch
    friend vfloat operator+(vfloat a, vfloat b) { return a.v + b.v; }
    friend vfloat operator*(vfloat a, vfloat b) { return a.v * b.v; }
};
using default_arch = scalar_arch;
template <class A>
struct arch_traits {
    using vfloat = simd::vfloat;
};
inline vfloat fmadd(vfloat a, vfloat b, vfloat c) {
    return a.v * b.v + c.v;
}
template <class V = vfloat>
inline V load(const float* p) {
    return *p;
}
inline void store(float* p, vfloat x) {
    *p = x.v;
}
#else
using default_arch = xsimd::default_arch;
template <class A>
struct arch_traits {
    using vfloat = xsimd::batch<float, A>;
};
using vfloat = xsimd::batch<float>;
/// Loads a vector of V's kind (the compile-time one by default).
template <class V = vfloat>
inline V load(const float* p) {
    return V::load_unaligned(p);
}
template <class A>
inline void store(float* p, xsimd::batch<float, A> x) {
    x.store_unaligned(p);
}
/// a * b + c (a fused multiply-add where the target has one).  xsimd 8's
/// AVX-512 has no fma of its own (its generic one multiplies, then adds), so
/// AVX-512 calls the instruction: every FMA path rounds once.
template <class A>
inline xsimd::batch<float, A> fmadd(xsimd::batch<float, A> a, xsimd::batch<float, A> b,
                                    xsimd::batch<float, A> c) {
#if XSIMD_WITH_AVX512F
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>)
        return xsimd::batch<float, A>(_mm512_fmadd_ps(a, b, c));
    else
#endif
        return xsimd::fma(a, b, c);
}

/// Base (an xsimd architecture) with an instruction-set extension xsimd 8
/// has no type for on top (Feature: a tag naming it, and whether this
/// translation unit's flags give it).  The same registers and xsimd kernels
/// as Base (overloads for Base take it as their nearest base), but a type
/// of its own, so the kernels a unit of the extension instantiates never
/// share a symbol with Base's unit; the kernels ask has_feature<A, Feature>.
template <class Base, class Feature>
struct with_feature : Base {
    using feature = Feature;
    static constexpr bool supported() noexcept { return Feature::compiled() && Base::supported(); }
    static constexpr char const* name() noexcept { return Feature::name; }
};
/// Whether architecture A is a with_feature<Base, Feature>.
template <class A, class Feature>
inline constexpr bool has_feature = requires {
    requires std::is_same_v<typename A::feature, Feature>;
};

/// x86's VNNI dot products (vpdpbusd, vpdpwssd: AVX512-VNNI or AVX-VNNI).
struct vnni_feature {
    static constexpr char const* name = "vnni";
    static constexpr bool compiled() noexcept {
#if defined(__AVX512VNNI__) || defined(__AVXVNNI__)
        return true;
#else
        return false;
#endif
    }
};
/// The Armv8.2 dot products (sdot, udot) on neon64.
struct dotprod_feature {
    static constexpr char const* name = "neon-dotprod";
    static constexpr bool compiled() noexcept {
#if defined(__ARM_FEATURE_DOTPROD)
        return true;
#else
        return false;
#endif
    }
};
template <class Base>
using with_vnni = with_feature<Base, vnni_feature>;
template <class Base>
using with_dotprod = with_feature<Base, dotprod_feature>;
template <class A>
inline constexpr bool has_vnni = has_feature<A, vnni_feature>;
template <class A>
inline constexpr bool has_dotprod = has_feature<A, dotprod_feature>;
#endif

inline constexpr const char* arch_name = default_arch::name();

/// Floats per vector (of the compile-time architecture).
inline constexpr std::int64_t width = static_cast<std::int64_t>(vfloat::size);
/// Floats per vector of architecture A.
template <class A>
inline constexpr std::int64_t width_of = static_cast<std::int64_t>(arch_traits<A>::vfloat::size);

// --- Run-time dispatch ------------------------------------------------------

// The CPU families of the table's rows: whether this target is one.
#if defined(__x86_64__)
#define LITEGRAPH_ISA_FAMILY_x86_64 1
#else
#define LITEGRAPH_ISA_FAMILY_x86_64 0
#endif
#if defined(__aarch64__)
#define LITEGRAPH_ISA_FAMILY_aarch64 1
#else
#define LITEGRAPH_ISA_FAMILY_aarch64 0
#endif

/// The kernel slots: the compile-time architecture, then one per row of
/// kernels/isa_table.hpp (narrowest first).
#define LITEGRAPH_ISA_ENUM(slot, family, flags, macros, cpu) slot,
enum class isa : int { baseline = 0, LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_ENUM) };
#undef LITEGRAPH_ISA_ENUM
#define LITEGRAPH_ISA_COUNT(slot, family, flags, macros, cpu) +1
inline constexpr int isa_count = 1 LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_COUNT);
#undef LITEGRAPH_ISA_COUNT

/// What the table's CPU tests read: on x86, CPUID bits and whether the OS
/// saves the wide registers (XGETBV); on aarch64 Linux, the kernel's HWCAP
/// bits (asimddp: sdot / udot; i8mm: smmla).  False where not read.
struct cpu_features {
    bool sse41 = false, avx = false, fma = false, ymm_state = false, avx2 = false;
    bool avx512f = false, avx512dq = false, avx512cd = false, avx512bw = false, avx512vl = false;
    bool avx512vnni = false, zmm_state = false, avx_vnni = false;
    bool asimddp = false, i8mm = false;
};

/// The isa slots' family test: whether the row's family is this target's.
#define LITEGRAPH_ISA_HERE(family) (LITEGRAPH_ISA_FAMILY_##family != 0)

}  // namespace litegraph::kernels::simd

namespace litegraph::kernels::detail {
struct gemm_impl;               // gemm.hpp
struct depthwise_impl;          // conv_depthwise.hpp
struct depthwise_direct_entry;  // conv_direct.hpp
struct int8_impl;               // conv_int8_fast.hpp
struct rnn_impl;                // rnn.hpp
struct winograd_impl;           // conv_winograd.hpp
}  // namespace litegraph::kernels::detail
namespace litegraph::kernels::epilogue {
struct chain_entry;  // epilogue.hpp
}  // namespace litegraph::kernels::epilogue

namespace litegraph::kernels::simd {
/// One arch unit's kernels (simd/arch_unit.hpp): constant data, pointers to
/// the unit's instantiations.  No code of an arch unit runs before the CPU
/// is known to have its instructions.
struct arch_table {
    const detail::gemm_impl* gemm;
    const detail::depthwise_impl* depthwise;
    const detail::depthwise_direct_entry* direct;  // one per activation it knows
    std::int64_t direct_count;
    const epilogue::chain_entry* chains;  // the fused convs' epilogue chains
    std::int64_t chain_count;
    const detail::int8_impl* int8;          // the int8 conv kernels (null: the reference)
    const detail::rnn_impl* rnn;            // the rnn op's recurrence
    const detail::winograd_impl* winograd;  // the 3x3 conv's Winograd transforms
};
}  // namespace litegraph::kernels::simd

#if (defined(LITEGRAPH_SIMD_X86) || defined(LITEGRAPH_SIMD_ARM64)) && defined(__ELF__)
#define LITEGRAPH_SIMD_DISPATCH 1
// Weak: null unless the slot's arch unit is linked into the program.
#define LITEGRAPH_ISA_DECLARE(slot, family, flags, macros, cpu) \
    extern const litegraph::kernels::simd::arch_table litegraph_simd_##slot __attribute__((weak));
extern "C" {
LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_DECLARE)
}
#undef LITEGRAPH_ISA_DECLARE
#endif

namespace litegraph::kernels::simd {

/// The arch unit of a slot, or null (the baseline has none: its kernels are
/// the header's, instantiated in the caller).
inline const arch_table* table_of(isa i) {
#if defined(LITEGRAPH_SIMD_DISPATCH)
#define LITEGRAPH_ISA_TABLE_OF(slot, family, flags, macros, cpu) \
    if (i == isa::slot) return LITEGRAPH_ISA_HERE(family) ? &litegraph_simd_##slot : nullptr;
    LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_TABLE_OF)
#undef LITEGRAPH_ISA_TABLE_OF
#else
    (void)i;
#endif
    return nullptr;
}

/// The name of the x86-64 baseline (any SSE level) in LITEGRAPH_SIMD.
inline constexpr const char* sse_baseline_name = "sse2";
/// The name of the aarch64 baseline (NEON, xsimd's neon64).
inline constexpr const char* neon_baseline_name = "neon";

/// A slot's name as LITEGRAPH_SIMD takes it and `run --json` reports it:
/// the row's slot with `-` for `_` (neon_dotprod: neon-dotprod).
inline std::string slot_name(const char* slot) {
    std::string s = slot;
    for (char& ch : s)
        if (ch == '_') ch = '-';
    return s;
}

/// Whether slot i (a row, or the baseline) belongs to this target's CPU
/// family: the rows of the other families are in the enum, never usable.
inline bool in_family(isa i) {
#define LITEGRAPH_ISA_IN_FAMILY(slot, family, flags, macros, cpu) \
    if (i == isa::slot) return LITEGRAPH_ISA_HERE(family);
    LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_IN_FAMILY)
#undef LITEGRAPH_ISA_IN_FAMILY
    return i == isa::baseline;
}

/// The name a slot reports (`run --json`'s `simd`) and LITEGRAPH_SIMD takes:
/// a row's slot_name.  The baseline is named after the compile-time
/// architecture: sse2 (for any SSE level), avx2, avx512, neon (aarch64) or
/// scalar.
inline std::string isa_name(isa i) {
#define LITEGRAPH_ISA_NAME(slot, family, flags, macros, cpu) \
    if (i == isa::slot) return slot_name(#slot);
    LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_NAME)
#undef LITEGRAPH_ISA_NAME
    const std::string n = default_arch::name();
    if (n.rfind("avx512", 0) == 0) return "avx512";
    if (n.find("avx2") != std::string::npos) return "avx2";
    if (n.rfind("sse", 0) == 0 || n.find("+sse") != std::string::npos) return sse_baseline_name;
    if (n.find("neon") != std::string::npos) return neon_baseline_name;
    return n;
}

/// The baseline's name in LITEGRAPH_SIMD: sse2 on x86-64 (whatever SSE or
/// AVX level the flags give), else the compile-time architecture's.
inline std::string family_baseline_name() {
#if defined(LITEGRAPH_SIMD_X86)
    return sse_baseline_name;
#else
    return isa_name(isa::baseline);
#endif
}

/// Every name LITEGRAPH_SIMD knows on this target, as "sse2, avx2 or
/// avx512": the baseline's and this CPU family's rows'.
inline std::string known_names() {
    std::vector<std::string> names{family_baseline_name()};
    for (int i = 1; i < isa_count; ++i)
        if (in_family(static_cast<isa>(i))) names.push_back(isa_name(static_cast<isa>(i)));
    std::string s = names[0];
    for (std::size_t i = 1; i < names.size(); ++i)
        s += (i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}

/// This CPU's features (read once).
inline const cpu_features& cpu() {
    static const cpu_features f = [] {
        cpu_features r;
#if defined(LITEGRAPH_SIMD_X86)
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return r;
        const bool osxsave = (c >> 27) & 1u;
        r.sse41 = (c >> 19) & 1u;
        r.fma = (c >> 12) & 1u;
        r.avx = (c >> 28) & 1u;
        if (osxsave) {
            unsigned xlo = 0, xhi = 0;
            __asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
            r.ymm_state = (xlo & 0x6u) == 0x6u;    // XMM and YMM state
            r.zmm_state = (xlo & 0xe0u) == 0xe0u;  // opmask, ZMM state
        }
        if (__get_cpuid_max(0, nullptr) < 7) return r;
        __cpuid_count(7, 0, a, b, c, d);
        r.avx2 = (b >> 5) & 1u;
        r.avx512f = (b >> 16) & 1u;
        r.avx512dq = (b >> 17) & 1u;
        r.avx512cd = (b >> 28) & 1u;
        r.avx512bw = (b >> 30) & 1u;
        r.avx512vl = (b >> 31) & 1u;
        r.avx512vnni = (c >> 11) & 1u;
        __cpuid_count(7, 1, a, b, c, d);
        r.avx_vnni = (a >> 4) & 1u;  // AVX-VNNI: the VEX (256-bit) dot products
#elif defined(LITEGRAPH_SIMD_ARM64)
        const unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
        r.asimddp = (hw >> 20) & 1ul;  // HWCAP_ASIMDDP
        r.i8mm = (hw2 >> 13) & 1ul;    // HWCAP2_I8MM
#endif
        return r;
    }();
    return f;
}

namespace detail {
/// A slot forced by set_active() (-1: none).
inline std::atomic<int> forced_isa{-1};

/// Whether this CPU (and the OS, which must save the wide registers) runs
/// the slot's instructions: the row's CPU test.
inline bool cpu_has(isa i) {
    [[maybe_unused]] const cpu_features& f = cpu();
#define LITEGRAPH_ISA_CPU(slot, family, flags, macros, cpu) \
    if (i == isa::slot) return LITEGRAPH_ISA_HERE(family) && (cpu);
    LITEGRAPH_ISA_TABLE(LITEGRAPH_ISA_CPU)
#undef LITEGRAPH_ISA_CPU
    return i == isa::baseline;
}

inline bool built(isa i) {
    return i == isa::baseline || table_of(i) != nullptr;
}
inline bool usable(isa i) {
    return built(i) && cpu_has(i);
}

/// The paths usable here, widest last, as "sse2, avx2, avx512".
inline std::string usable_list() {
    std::string s;
    for (int i = 0; i < isa_count; ++i)
        if (usable(static_cast<isa>(i)))
            s += (s.empty() ? "" : ", ") + isa_name(static_cast<isa>(i));
    return s;
}

/// Whether `name` is a row of the table for this CPU family.
inline bool named_in_table(const std::string& name) {
    for (int i = 1; i < isa_count; ++i)
        if (in_family(static_cast<isa>(i)) && isa_name(static_cast<isa>(i)) == name) return true;
    return false;
}

/// The slot LITEGRAPH_SIMD names, or the widest usable one; `error` says
/// what is wrong with the variable (and the widest usable slot is returned).
inline isa choose(std::string& error) {
    isa widest = isa::baseline;
    for (int i = isa_count - 1; i > 0; --i)
        if (usable(static_cast<isa>(i))) {
            widest = static_cast<isa>(i);
            break;
        }
    const char* env = std::getenv("LITEGRAPH_SIMD");
    if (!env || !*env) return widest;
    const std::string want = slot_name(env);  // neon_dotprod or neon-dotprod
    bool named = false;
    for (int i = isa_count - 1; i >= 0; --i) {
        const isa s = static_cast<isa>(i);
        if (isa_name(s) != want || !built(s)) continue;
        if (cpu_has(s)) return s;
        named = true;
    }
    if (named)
        error = "LITEGRAPH_SIMD=" + want + ": this CPU does not have " + want +
                " (paths here: " + usable_list() + ")";
    else if (want != isa_name(isa::baseline) && want != family_baseline_name() &&
             !named_in_table(want))
        error = "LITEGRAPH_SIMD=" + want + ": unknown instruction set (" + known_names() + ")";
    else
        error = "LITEGRAPH_SIMD=" + want +
                ": not built into this program (paths here: " + usable_list() + ")";
    return widest;
}

struct choice {
    isa slot = isa::baseline;
    std::string error;
};
inline const choice& chosen() {
    static const choice c = [] {
        choice r;
        r.slot = choose(r.error);
        return r;
    }();
    return c;
}
}  // namespace detail

/// The slot the kernels run: chosen once (LITEGRAPH_SIMD, else the widest
/// this CPU has), unless a test forced one with set_active().  A bad
/// LITEGRAPH_SIMD value is reported by check_env() (the kernels then run
/// the widest path).
inline isa active() {
    const int f = detail::forced_isa.load(std::memory_order_relaxed);
    if (f >= 0) return static_cast<isa>(f);
    return detail::chosen().slot;
}

/// The name of the active path (`run --json`'s `simd`).
inline std::string active_name() {
    return isa_name(active());
}

/// What is wrong with LITEGRAPH_SIMD (empty when it is unset or usable):
/// the CLI reports it and exits non-zero before running anything.
inline const std::string& check_env() {
    return detail::chosen().error;
}

/// Whether this program has the slot's kernels and this CPU runs them.
inline bool usable(isa i) {
    return detail::usable(i);
}

/// Forces a slot (tests compare paths in one process); returns false, and
/// changes nothing, when the slot is not usable here.  Weights prepared
/// (packed) under one slot keep running its kernels.
inline bool set_active(isa i) {
    if (!detail::usable(i)) return false;
    detail::forced_isa.store(static_cast<int>(i));
    return true;
}
/// Undoes set_active().
inline void clear_active() {
    detail::forced_isa.store(-1);
}

}  // namespace litegraph::kernels::simd

#if !defined(LITEGRAPH_SCALAR_SIMD)
// with_feature<B, F>'s registers are B's (as XSIMD_DECLARE_SIMD_REGISTER_ALIAS).
namespace xsimd::types {
template <class T, class B, class F>
struct simd_register<T, litegraph::kernels::simd::with_feature<B, F>> : simd_register<T, B> {
    using register_type = typename simd_register<T, B>::register_type;
    simd_register(register_type reg) noexcept : simd_register<T, B>{reg} {}
    simd_register() = default;
};
template <class T, class B, class F>
struct has_simd_register<T, litegraph::kernels::simd::with_feature<B, F>>
    : has_simd_register<T, B> {};
template <class T, class B, class F>
struct get_bool_simd_register<T, litegraph::kernels::simd::with_feature<B, F>>
    : get_bool_simd_register<T, B> {};
}  // namespace xsimd::types

#if XSIMD_WITH_NEON64
// xsimd 8's neon64 broadcast returns batch<T, neon64> whatever the
// architecture asked (its kernel::broadcast<neon64>), which does not convert
// to batch<T, with_dotprod<neon64>>: these specializations keep the
// architecture, as the call that follows them does.
namespace xsimd::kernel {
#define LITEGRAPH_NEON64_BROADCAST(T)                                                              \
    template <>                                                                                    \
    inline batch<T, litegraph::kernels::simd::with_dotprod<neon64>>                                \
    broadcast<litegraph::kernels::simd::with_dotprod<neon64>, T>(T val,                            \
                                                                 requires_arch<neon64>) noexcept { \
        return broadcast<litegraph::kernels::simd::with_dotprod<neon64>>(val, neon{});             \
    }
LITEGRAPH_NEON64_BROADCAST(float)
LITEGRAPH_NEON64_BROADCAST(std::int8_t)
LITEGRAPH_NEON64_BROADCAST(std::uint8_t)
LITEGRAPH_NEON64_BROADCAST(std::int16_t)
LITEGRAPH_NEON64_BROADCAST(std::uint16_t)
LITEGRAPH_NEON64_BROADCAST(std::int32_t)
LITEGRAPH_NEON64_BROADCAST(std::uint32_t)
LITEGRAPH_NEON64_BROADCAST(std::int64_t)
LITEGRAPH_NEON64_BROADCAST(std::uint64_t)
#undef LITEGRAPH_NEON64_BROADCAST
}  // namespace xsimd::kernel
#endif

#endif
