// One instruction set's kernels in a translation unit of their own, compiled
// with that instruction set's flags: the unit src/simd/<slot>.cpp of a row of
// kernels/isa_table.hpp (see kernels/simd.hpp), installed as
// share/litegraph/simd/<slot>.cpp.  The unit defines one constant table,
// litegraph_simd_<slot> = unit<A>::table, of pointers to the kernels
// instantiated for its xsimd architecture A: the SGEMM row panel, the depthwise band kernel, the
// depthwise direct kernel of every vectorised activation, the vector loop
// of every vectorised epilogue chain of the fused convs (fusion::fused_conv_ops),
// the int8 kernels with the int8 convs' vector epilogues (requantize,
// float output) and quantize_int8's loop, the rnn op's recurrence and the
// 3x3 conv's Winograd transforms.  It runs no
// code at start-up (the table is constant data) and instantiates only
// templates on A, so nothing compiled with its flags is reachable from the
// baseline path except through the table, after the CPU check.
#pragma once

#include <array>
#include <cstddef>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/conv_int8_fast.hpp"
#include "litegraph/kernels/epilogue.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/rnn.hpp"
#include "litegraph/ops/activation.hpp"

namespace litegraph::simd_unit {

template <class A, class List>
struct direct_entries;
template <class A, class... F>
struct direct_entries<A, ops::functor_list<F...>> {
    template <class G>
    static constexpr bool vec = kernels::epilogue::vector_act<G>;
    static constexpr std::size_t count = 1 + (std::size_t{vec<F>} + ... + 0);
    static constexpr std::array<kernels::detail::depthwise_direct_entry, count> make() {
        std::array<kernels::detail::depthwise_direct_entry, count> out{};
        std::size_t i = 0;
        out[i++] = kernels::detail::depthwise_direct_entry_of<A, kernels::identity_act>();
        (
            [&] {
                if constexpr (vec<F>) out[i++] = kernels::detail::depthwise_direct_entry_of<A, F>();
            }(),
            ...);
        return out;
    }
    static constexpr std::array<kernels::detail::depthwise_direct_entry, count> value = make();
};

/// The vector loop of every vectorised epilogue chain of the fused convs.
template <class A, class List>
struct chain_entries;
template <class A, class... F>
struct chain_entries<A, op_list<F...>> {
    template <class G>
    static constexpr bool vec = G::chain_type::vectorized;
    static constexpr std::size_t count = (std::size_t{vec<F>} + ... + 0);
    static constexpr std::array<kernels::epilogue::chain_entry, count> make() {
        std::array<kernels::epilogue::chain_entry, count> out{};
        std::size_t i = 0;
        (
            [&] {
                if constexpr (vec<F>) {
                    using C = typename F::chain_type;
                    out[i++] = {&kernels::epilogue::chain_tag<C>, &C::template emit_vec_erased<A>};
                }
            }(),
            ...);
        return out;
    }
    static constexpr std::array<kernels::epilogue::chain_entry, count> value = make();
};

/// The vector requantize of every int8-output chain of the int8 convs
/// whose activation has a vector form.
template <class A, class List>
struct requant_entries;
template <class A, class... F>
struct requant_entries<A, op_list<F...>> {
    template <class G>
    static constexpr bool vec = G::requant_vectorizes;
    static constexpr std::size_t count = (std::size_t{vec<F>} + ... + 0);
    static constexpr std::array<kernels::int8_requant_entry, count> make() {
        std::array<kernels::int8_requant_entry, count> out{};
        std::size_t i = 0;
        (
            [&] {
                if constexpr (vec<F>) {
                    using C = typename F::chain_type;
                    out[i++] = {&kernels::epilogue::chain_tag<C>,
                                &kernels::detail::requant_vec<A, C>};
                }
            }(),
            ...);
        return out;
    }
    static constexpr std::array<kernels::int8_requant_entry, count> value = make();
};

/// The vector loop of every float-output chain of the int8 convs whose
/// stages all have a vector form.
template <class A, class List>
struct int8_float_entries;
template <class A, class... F>
struct int8_float_entries<A, op_list<F...>> {
    template <class G>
    static constexpr bool vec = G::float_vectorizes;
    static constexpr std::size_t count = (std::size_t{vec<F>} + ... + 0);
    static constexpr std::array<kernels::int8_float_entry, count> make() {
        std::array<kernels::int8_float_entry, count> out{};
        std::size_t i = 0;
        (
            [&] {
                if constexpr (vec<F>) {
                    using C = typename F::chain_type;
                    out[i++] = {&kernels::epilogue::chain_tag<C>,
                                &kernels::detail::int8_float_vec<A, C>};
                }
            }(),
            ...);
        return out;
    }
    static constexpr std::array<kernels::int8_float_entry, count> value = make();
};

/// The table of arch unit A (its flags must give A's instructions).
template <class A>
struct unit {
    static_assert(A::supported(),
                  "an arch unit compiles with its row's flags (kernels/isa_table.hpp)");
    static constexpr kernels::detail::gemm_impl gemm = kernels::detail::gemm_impl_of<A>();
    static constexpr kernels::detail::depthwise_impl depthwise =
        kernels::detail::depthwise_impl_of<A>();
    using direct = direct_entries<A, ops::activation_functors>;
    using chains = chain_entries<A, fusion::fused_conv_ops>;
    using requants = requant_entries<A, fusion::fused_int8_ops>;
    using int8_floats = int8_float_entries<A, fusion::fused_int8_ops>;
    static constexpr kernels::detail::int8_impl int8 = kernels::detail::int8_impl_of<A>(
        requants::value.data(), static_cast<std::int64_t>(requants::count),
        int8_floats::value.data(), static_cast<std::int64_t>(int8_floats::count));
    static constexpr kernels::detail::rnn_impl rnn = kernels::detail::rnn_impl_of<A>();
    static constexpr kernels::detail::winograd_impl winograd =
        kernels::detail::winograd_impl_of<A>();
    static constexpr kernels::simd::arch_table table = {&gemm,
                                                        &depthwise,
                                                        direct::value.data(),
                                                        static_cast<std::int64_t>(direct::count),
                                                        chains::value.data(),
                                                        static_cast<std::int64_t>(chains::count),
                                                        &int8,
                                                        &rnn,
                                                        &winograd};
};

}  // namespace litegraph::simd_unit
