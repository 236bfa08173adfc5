// The direct conv kernels: a depthwise or pointwise conv that finishes its
// output in registers (bias, scale, activation) and writes it straight into
// a dense NCHW output, with no epilogue call and no second pass
// (depthwise_conv2d_direct, pointwise_conv2d_direct).  Both take their
// kernels, per activation, from the active instruction set's table (an arch
// unit lists one depthwise_direct_entry per activation it knows), or else
// the compile-time architecture's.
#pragma once

#include <algorithm>
#include <cstdint>

#include "litegraph/core/error.hpp"
#include "litegraph/kernels/conv_depthwise.hpp"
#include "litegraph/kernels/conv_geometry.hpp"
#include "litegraph/kernels/conv_pointwise.hpp"
#include "litegraph/kernels/gemm.hpp"
#include "litegraph/kernels/simd.hpp"

namespace litegraph::kernels {

/// The identity activation of depthwise_direct (no activation).
struct identity_act {
    float operator()(float v) const { return v; }
    template <class V>
    V vec(V v) const {
        return v;
    }
};

/// A depthwise conv that finishes its output in registers and writes it
/// straight into a dense NCHW `y` [N, C, OH, OW]:
///   y = act(conv + bias[c])   (bias optional: null adds nothing)
///   y = act(conv * scale[c] + bias[c])   (with a scale: a folded batch norm)
/// Without a scale the accumulators start at the bias (as optimised kernels
/// do), so the sum rounds in another order than conv-then-add: within a few
/// ulps.  With one they start at 0 and the scale and bias follow, as a
/// batch norm after the conv computes them.
/// `act` is any functor with `float operator()(float)` and a vector form
/// `V vec(V)` doing the same operations (ops::act::relu, relu6, hard_swish ...).
/// No epilogue call and no second pass: what fused<conv2d, bias, act<F>>
/// and a plain depthwise conv run on.
template <class Act>
struct depthwise_direct {
    float* y = nullptr;
    const float* bias = nullptr;
    const float* scale = nullptr;
    Act act{};
};

namespace detail {

/// The pointwise direct kernel's type (pointwise_direct_run).
using pointwise_direct_fn = void (*)(const conv_geometry&, const float*, const float*, float*,
                                     const float*, const float*, const void*, std::int64_t,
                                     std::int64_t);
/// The direct kernels of activation Act, its activation passed as `const
/// void*` (an arch unit lists one per activation: depthwise_direct_entry).
template <class Act>
struct depthwise_direct_impl {
    std::int64_t width = 0;
    void (*plane)(const conv_geometry&, const float*, std::int64_t, const std::int64_t*,
                  const float*, float*, float, const float*, const void*) = nullptr;
    pointwise_direct_fn pointwise = nullptr;
};
template <class A, class Act>
void depthwise_direct_erased(const conv_geometry& g, const float* ph, std::int64_t pw,
                             const std::int64_t* tap, const float* wt, float* y, float bias,
                             const float* scale, const void* act) {
    depthwise_direct_plane<A>(g, ph, pw, tap, wt, y, bias, scale, *static_cast<const Act*>(act));
}
/// A key per activation type: the address of its tag.
template <class Act>
inline constexpr char act_tag = 0;
struct depthwise_direct_entry {
    const void* key;  // &act_tag<Act>
    std::int64_t width;
    void (*plane)(const conv_geometry&, const float*, std::int64_t, const std::int64_t*,
                  const float*, float*, float, const float*, const void*);
    pointwise_direct_fn pointwise;  // the pointwise conv of the same activation
};

template <class A, class Act>
constexpr depthwise_direct_entry depthwise_direct_entry_of() {
    return {&act_tag<Act>, simd::width_of<A>, &depthwise_direct_erased<A, Act>,
            &pointwise_direct_run<A, Act>};
}
/// The direct kernel of Act in a slot: its arch unit's when the unit knows
/// Act (simd/arch_unit.hpp lists ops::activation_functors), otherwise the
/// compile-time architecture's.
template <class Act>
depthwise_direct_impl<Act> depthwise_direct_for(simd::isa i) {
    if (const simd::arch_table* t = simd::table_of(i))
        for (std::int64_t e = 0; e < t->direct_count; ++e)
            if (t->direct[e].key == &act_tag<Act>)
                return {t->direct[e].width, t->direct[e].plane, t->direct[e].pointwise};
    return {simd::width_of<simd::default_arch>, &depthwise_direct_erased<simd::default_arch, Act>,
            &pointwise_direct_run<simd::default_arch, Act>};
}

}  // namespace detail

/// Depthwise conv written straight into d.y (dense NCHW), bias and activation
/// in registers (see depthwise_direct).  Same plane order and input reading
/// as depthwise_conv2d, so it too may run in place of its input.
template <class Act>
void depthwise_conv2d_direct(const conv_geometry& g, const float* x, const float* w,
                             const depthwise_direct<Act>& d, workspace* ws = nullptr) {
    g.validate();
    if (!g.is_depthwise())
        LITEGRAPH_THROW(shape_error("kernels::depthwise_conv2d: needs groups == C == OC"));
    if (!ws) ws = &workspace::local();
    const std::int64_t plane = g.oh * g.ow;
    const detail::depthwise_direct_impl<Act> impl =
        detail::depthwise_direct_for<Act>(simd::active());
    detail::depthwise_planes(g, x, ws, impl.width,
                             [&](std::int64_t n, std::int64_t ch, const float* ph, std::int64_t pw,
                                 const std::int64_t* tap) {
                                 impl.plane(g, ph, pw, tap, w + ch * g.kh * g.kw,
                                            d.y + (n * g.c + ch) * plane, d.bias ? d.bias[ch] : 0.f,
                                            d.scale ? d.scale + ch : nullptr, &d.act);
                             });
}

/// A pointwise conv written straight into d.y (dense NCHW) with d's bias
/// (required), scale and activation applied in registers: the output of
/// conv2d's SGEMM path followed by chain<bias, act<Act>>, bit for bit, without
/// its tile store and second pass.  Reads x whole (not in place).  Returns
/// false, doing nothing, when !pointwise_direct_fits(g) or d.bias is null.
/// With a range, only the columns [c0, c1) of every image's output plane
/// (clamped to it): the same bits as the whole call there, so ranges may
/// run on different threads.
template <class Act>
bool pointwise_conv2d_direct(const conv_geometry& g, const float* x, const float* w,
                             const depthwise_direct<Act>& d, std::int64_t c0 = 0,
                             std::int64_t c1 = -1) {
    g.validate();
    const detail::depthwise_direct_impl<Act> impl =
        detail::depthwise_direct_for<Act>(simd::active());
    if (!d.bias || !pointwise_direct_fits(g, impl.width)) return false;
    const std::int64_t hw = g.oh * g.ow;
    c1 = c1 < 0 ? hw : std::min(c1, hw);
    c0 = std::clamp<std::int64_t>(c0, 0, c1);
    if (c0 < c1) impl.pointwise(g, x, w, d.y, d.bias, d.scale, &d.act, c0, c1);
    return true;
}

}  // namespace litegraph::kernels
