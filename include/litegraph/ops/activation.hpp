// Unary activations: relu, relu6, leaky_relu, sigmoid, tanh, hard_swish,
// hard_sigmoid, swish, silu, exp, thresholded_relu, gelu, mish, softplus,
// softsign, brelu / hardtanh, elu, and the unary math ops log, floor, sqrt,
// abs, rsqrt, square, sin, cos, erf (and `pow`, whose factor may be an input, so
// it is an op of its own below).  Each is a small functor in `ops::act` with
// `float operator()(float) const` (its attributes are members) and the Paddle
// op is `activation<Functor>`: one loop applying it.
//
// This header is the one home of an activation's facts.  A functor declares:
//   paddle_type            its Paddle op type; also its name in ops::act (the
//                          firmware generator prints `litegraph::ops::act::<type>`)
//   parse(attr_map)        its attributes, with Paddle's defaults
//   operator()(float)      the value
//   fields()               its attributes in declaration order, as a tuple (the
//                          generator's aggregate initializer; OpenCL's p0, p1, p2)
// and optionally:
//   vec(V)                 an xsimd form, the same operations in the same order (so
//                          bit-identical to the scalar form; absent where xsimd is
//                          not used, e.g. Cortex-M), which the fused epilogues
//                          (kernels/epilogue.hpp) and the op's loop (kernels::map)
//                          run in vector registers
//   fusable = true         a conv epilogue stage: the fused fp32 and int8 conv
//                          kernels, the pass fuse_conv_activation and the firmware
//                          layers take it (fusion/fused.hpp, fusion/fused_int8.hpp)
//   opencl                 its OpenCL C expression of `v` and p0..p2 (the fields):
//                          the OpenCL backend runs it, alone or fused
//   pir_type               its Paddle 3.x (PIR) op name: the PIR loader reads it
//                          (operand 0 -> X, result 0 -> Out), ops/pir_traits.hpp
//   pir_attrs[]            the attributes it reads from that PIR op, with PIR's
//                          name where it differs ({"negative_slope", "alpha"})
// and `activation_functors` below lists it.  Every listed activation is an op,
// runs in place of its input (passes/in_place.hpp) and has a compile-time layer
// (firmware/network.hpp's `unary`); everything else derives from the traits.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/kernels/simd.hpp"

#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/kernels/exp.hpp"
#include "litegraph/ops/firmware.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

namespace act {
struct relu {
    static constexpr std::string_view paddle_type = "relu";
    static constexpr std::string_view pir_type = "1.relu";
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v > 0.f ? v : 0.f";
    static relu parse(const attr_map&) { return {}; }
    float operator()(float x) const { return x > 0.f ? x : 0.f; }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
#if XSIMD_WITH_SSE2
        // x86 max returns its second operand when one is NaN: x > 0 ? x : 0.
        return xsimd::max(x, V(0.f));
#else
        return xsimd::select(x > V(0.f), x, V(0.f));
#endif
    }
#endif
};
/// min(max(0, x), threshold)
struct relu6 {
    static constexpr std::string_view paddle_type = "relu6";
    static constexpr std::string_view pir_type = "1.relu6";
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "fmin(fmax(0.f, v), p0)";
    float threshold = 6.f;
    static relu6 parse(const attr_map& a) { return {a.get<float>("threshold", 6.f)}; }
    auto fields() const { return std::tuple{threshold}; }
    float operator()(float x) const { return std::min(std::max(0.f, x), threshold); }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
#if XSIMD_WITH_SSE2
        // x86 max / min return their second operand when one is NaN.
        return xsimd::min(xsimd::max(x, V(0.f)), V(threshold));
#else
        const V m = xsimd::select(V(0.f) < x, x, V(0.f));
        return xsimd::select(V(threshold) < m, V(threshold), m);
#endif
    }
#endif
};
/// x >= 0 ? x : alpha * x
struct leaky_relu {
    static constexpr std::string_view paddle_type = "leaky_relu";
    static constexpr std::string_view pir_type = "1.leaky_relu";
    static constexpr pir_attr pir_attrs[] = {{"negative_slope", "alpha"}};
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v >= 0.f ? v : p0 * v";
    float alpha = 0.02f;
    static leaky_relu parse(const attr_map& a) { return {a.get<float>("alpha", 0.02f)}; }
    auto fields() const { return std::tuple{alpha}; }
    float operator()(float x) const { return x >= 0.f ? x : alpha * x; }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
        return xsimd::select(x >= V(0.f), x, V(alpha) * x);
    }
#endif
};
struct sigmoid {
    static constexpr std::string_view paddle_type = "sigmoid";
    static constexpr std::string_view pir_type = "1.sigmoid";
    static constexpr bool fusable = true;
    static constexpr bool gate = true;
    static constexpr std::string_view opencl = "1.f / (1.f + exp(-v))";
    static sigmoid parse(const attr_map&) { return {}; }
    // exp by kernels::exp_ops (basic IEEE operations only): the vector form
    // gives the same bits in every lane, NaN included.
    float operator()(float x) const { return 1.f / (1.f + kernels::exp_ops(-x)); }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
        return V(1.f) / (V(1.f) + kernels::exp_ops(-x));
    }
#endif
};
struct tanh {
    static constexpr std::string_view paddle_type = "tanh";
    static constexpr std::string_view pir_type = "1.tanh";
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "tanh(v)";
    static tanh parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::tanh(x); }
};
/// x * min(max(x + offset, 0), threshold) / scale
struct hard_swish {
    static constexpr std::string_view paddle_type = "hard_swish";
    static constexpr std::string_view pir_type = "1.hardswish";
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v * fmin(fmax(v + p2, 0.f), p0) / p1";
    float threshold = 6.f, scale = 6.f, offset = 3.f;
    static hard_swish parse(const attr_map& a) {
        return {a.get<float>("threshold", 6.f), a.get<float>("scale", 6.f),
                a.get<float>("offset", 3.f)};
    }
    auto fields() const { return std::tuple{threshold, scale, offset}; }
    // Multiplies by 1 / scale (within an ulp of dividing by it, and far
    // cheaper in vector registers).
    float operator()(float x) const {
        return x * std::min(std::max(x + offset, 0.f), threshold) * (1.f / scale);
    }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
        // max(0, y) is (0 > y ? 0 : y) and min(t, m) is (t < m ? t : m), the
        // scalar form's comparisons, NaN included (x86: maxps / minps return
        // their second operand on NaN; NEON: NaN in, NaN out, and y is the
        // only operand that may be NaN): one instruction each, where a
        // select is a compare and a blend.
        const V y = x + V(offset);
        const V m = xsimd::max(V(0.f), y);
        return x * xsimd::min(V(threshold), m) * V(1.f / scale);
    }
#endif
};
/// max(0, min(1, slope * x + offset))
struct hard_sigmoid {
    static constexpr std::string_view paddle_type = "hard_sigmoid";
    static constexpr std::string_view pir_type = "1.hardsigmoid";
    static constexpr pir_attr pir_attrs[] = {{"slope"}, {"offset"}};
    static constexpr bool fusable = true;
    static constexpr bool gate = true;
    static constexpr std::string_view opencl = "fmax(0.f, fmin(1.f, p0 * v + p1))";
    float slope = 0.2f, offset = 0.5f;
    static hard_sigmoid parse(const attr_map& a) {
        return {a.get<float>("slope", 0.2f), a.get<float>("offset", 0.5f)};
    }
    auto fields() const { return std::tuple{slope, offset}; }
    float operator()(float x) const { return std::max(0.f, std::min(1.f, slope * x + offset)); }
#if !defined(LITEGRAPH_SCALAR_SIMD)  // no vector form without xsimd
    template <class V>
    V vec(V x) const {
        const V y = V(slope) * x + V(offset);
        const V m = xsimd::select(y < V(1.f), y, V(1.f));
        return xsimd::select(V(0.f) < m, m, V(0.f));
    }
#endif
};
/// x / (1 + exp(-beta * x))
struct swish {
    static constexpr std::string_view paddle_type = "swish";
    static constexpr std::string_view pir_type = "1.swish";
    float beta = 1.f;
    static swish parse(const attr_map& a) { return {a.get<float>("beta", 1.f)}; }
    auto fields() const { return std::tuple{beta}; }
    float operator()(float x) const { return x / (1.f + std::exp(-beta * x)); }
};
/// x / (1 + exp(-x))
struct silu {
    static constexpr std::string_view paddle_type = "silu";
    static constexpr std::string_view pir_type = "1.silu";
    static silu parse(const attr_map&) { return {}; }
    float operator()(float x) const { return x / (1.f + std::exp(-x)); }
};
struct exp {
    static constexpr std::string_view paddle_type = "exp";
    static constexpr std::string_view pir_type = "1.exp";
    static exp parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::exp(x); }
};
/// x > threshold ? x : value (Paddle 3.x added `value`, default 0)
struct thresholded_relu {
    static constexpr std::string_view paddle_type = "thresholded_relu";
    static constexpr std::string_view pir_type = "1.thresholded_relu";
    static constexpr pir_attr pir_attrs[] = {{"threshold"}, {"value"}};
    float threshold = 1.f, value = 0.f;
    static thresholded_relu parse(const attr_map& a) {
        return {a.get<float>("threshold", 1.f), a.get<float>("value", 0.f)};
    }
    auto fields() const { return std::tuple{threshold, value}; }
    float operator()(float x) const { return x > threshold ? x : value; }
};
/// approximate: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)));
/// otherwise 0.5 x (1 + erf(x / sqrt(2))).
struct gelu {
    static constexpr std::string_view paddle_type = "gelu";
    static constexpr std::string_view pir_type = "1.gelu";
    static constexpr pir_attr pir_attrs[] = {{"approximate"}};
    bool approximate = false;
    static gelu parse(const attr_map& a) { return {a.get<bool>("approximate", false)}; }
    auto fields() const { return std::tuple{approximate}; }
    float operator()(float x) const {
        if (approximate) {
            constexpr float k = 0.7978845608028654f;  // sqrt(2 / pi)
            return 0.5f * x * (1.f + std::tanh(k * (x + 0.044715f * x * x * x)));
        }
        constexpr float r = 0.7071067811865476f;  // 1 / sqrt(2)
        return 0.5f * x * (1.f + std::erf(x * r));
    }
};
/// Natural log (NaN below 0, -inf at 0, as std::log).
struct log {
    static constexpr std::string_view paddle_type = "log";
    static constexpr std::string_view pir_type = "1.log";
    static log parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::log(x); }
};
struct floor {
    static constexpr std::string_view paddle_type = "floor";
    static constexpr std::string_view pir_type = "1.floor";
    static floor parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::floor(x); }
};
/// NaN below 0, as std::sqrt.
struct sqrt {
    static constexpr std::string_view paddle_type = "sqrt";
    static constexpr std::string_view pir_type = "1.sqrt";
    static sqrt parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::sqrt(x); }
};
struct abs {
    static constexpr std::string_view paddle_type = "abs";
    static constexpr std::string_view pir_type = "1.abs";
    static abs parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::fabs(x); }
};
/// x * tanh(softplus(x)), softplus(x) = x > threshold ? x : log(1 + e^x)
/// (Paddle 2.x attribute `threshold`, default 20; Paddle 3.x calls it `lambda`).
struct mish {
    static constexpr std::string_view paddle_type = "mish";
    static constexpr std::string_view pir_type = "1.mish";
    static constexpr pir_attr pir_attrs[] = {{"lambda", "threshold"}};
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v * tanh(v > p0 ? v : log1p(exp(v)))";
    float threshold = 20.f;
    static mish parse(const attr_map& a) { return {a.get<float>("threshold", 20.f)}; }
    auto fields() const { return std::tuple{threshold}; }
    float operator()(float x) const {
        const float sp = x > threshold ? x : std::log1p(std::exp(x));
        return x * std::tanh(sp);
    }
};
/// beta * x > threshold ? x : log(1 + e^(beta x)) / beta
struct softplus {
    static constexpr std::string_view paddle_type = "softplus";
    static constexpr std::string_view pir_type = "1.softplus";
    static constexpr pir_attr pir_attrs[] = {{"threshold"}, {"beta"}};
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "p0 * v > p1 ? v : log1p(exp(p0 * v)) / p0";
    float beta = 1.f, threshold = 20.f;
    static softplus parse(const attr_map& a) {
        return {a.get<float>("beta", 1.f), a.get<float>("threshold", 20.f)};
    }
    auto fields() const { return std::tuple{beta, threshold}; }
    float operator()(float x) const {
        const float xb = beta * x;
        return xb > threshold ? x : std::log1p(std::exp(xb)) / beta;
    }
};
/// x / (1 + |x|)
struct softsign {
    static constexpr std::string_view paddle_type = "softsign";
    static constexpr std::string_view pir_type = "1.softsign";
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v / (1.f + fabs(v))";
    static softsign parse(const attr_map&) { return {}; }
    float operator()(float x) const { return x / (1.f + std::fabs(x)); }
};
/// min(max(x, t_min), t_max): Paddle 2.x exports paddle.nn.functional.hardtanh
/// as `brelu` (defaults t_min 0, t_max 24); later versions name it `hardtanh`.
struct brelu {
    static constexpr std::string_view paddle_type = "brelu";
    float t_min = 0.f, t_max = 24.f;
    static brelu parse(const attr_map& a) {
        return {a.get<float>("t_min", 0.f), a.get<float>("t_max", 24.f)};
    }
    auto fields() const { return std::tuple{t_min, t_max}; }
    float operator()(float x) const { return std::min(std::max(x, t_min), t_max); }
};
struct hardtanh : brelu {
    static constexpr std::string_view paddle_type = "hardtanh";
    static constexpr std::string_view pir_type = "1.hardtanh";
    static constexpr pir_attr pir_attrs[] = {{"t_min"}, {"t_max"}};
    static hardtanh parse(const attr_map& a) { return {brelu::parse(a)}; }
};
/// 1 / sqrt(x) (inf at 0, NaN below 0).
struct rsqrt {
    static constexpr std::string_view paddle_type = "rsqrt";
    static constexpr std::string_view pir_type = "1.rsqrt";
    static rsqrt parse(const attr_map&) { return {}; }
    float operator()(float x) const { return 1.f / std::sqrt(x); }
};
struct square {
    static constexpr std::string_view paddle_type = "square";
    static constexpr std::string_view pir_type = "1.square";
    static square parse(const attr_map&) { return {}; }
    float operator()(float x) const { return x * x; }
};
struct sin {
    static constexpr std::string_view paddle_type = "sin";
    static constexpr std::string_view pir_type = "1.sin";
    static sin parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::sin(x); }
};
struct cos {
    static constexpr std::string_view paddle_type = "cos";
    static constexpr std::string_view pir_type = "1.cos";
    static cos parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::cos(x); }
};
struct erf {
    static constexpr std::string_view paddle_type = "erf";
    static constexpr std::string_view pir_type = "1.erf";
    static erf parse(const attr_map&) { return {}; }
    float operator()(float x) const { return std::erf(x); }
};
/// x > 0 ? x : alpha * (e^x - 1)
struct elu {
    static constexpr std::string_view paddle_type = "elu";
    static constexpr std::string_view pir_type = "1.elu";
    static constexpr pir_attr pir_attrs[] = {{"alpha"}};
    static constexpr bool fusable = true;
    static constexpr std::string_view opencl = "v > 0.f ? v : p0 * (exp(v) - 1.f)";
    float alpha = 1.f;
    static elu parse(const attr_map& a) { return {a.get<float>("alpha", 1.f)}; }
    auto fields() const { return std::tuple{alpha}; }
    float operator()(float x) const { return x > 0.f ? x : alpha * (std::exp(x) - 1.f); }
};
}  // namespace act

/// Every activation functor: each is an op (`activation<F>`, registered by
/// ops/builtin_ops.hpp from this list), runs in place and has a firmware layer.
template <class... F>
struct functor_list {};
using activation_functors =
    functor_list<act::relu, act::relu6, act::leaky_relu, act::sigmoid, act::tanh, act::hard_swish,
                 act::hard_sigmoid, act::swish, act::silu, act::exp, act::thresholded_relu,
                 act::gelu, act::log, act::floor, act::sqrt, act::abs, act::mish, act::softplus,
                 act::softsign, act::brelu, act::hardtanh, act::rsqrt, act::square, act::sin,
                 act::cos, act::erf, act::elu>;

/// F declares `fusable = true`: a conv epilogue stage.
template <class F>
concept fusable_activation = requires {
    requires F::fusable;
};
/// F declares `gate = true` (and is fusable): a fused conv's gate, the
/// activation whose output multiplies another tensor (passes/fuse_gate.hpp).
template <class F>
concept gate_activation = fusable_activation<F> && requires {
    requires F::gate;
};
/// F declares an OpenCL C expression.
template <class F>
concept opencl_activation = requires {
    { F::opencl } -> std::convertible_to<std::string_view>;
};

/// The attributes of activation functor f in declaration order (an empty
/// tuple for a functor without attributes).
template <class F>
auto fields_of(const F& f) {
    if constexpr (requires { f.fields(); }) {
        return f.fields();
    } else {
        static_assert(std::is_empty_v<F>, "an activation with attributes declares fields()");
        return std::tuple<>{};
    }
}

namespace detail {
template <template <class> class Keep, class Out, class... F>
struct filter_functors;
template <template <class> class Keep, class... Kept>
struct filter_functors<Keep, functor_list<Kept...>> {
    using type = functor_list<Kept...>;
};
template <template <class> class Keep, class... Kept, class F, class... Rest>
struct filter_functors<Keep, functor_list<Kept...>, F, Rest...> {
    using type = typename filter_functors<
        Keep, std::conditional_t<Keep<F>::value, functor_list<Kept..., F>, functor_list<Kept...>>,
        Rest...>::type;
};
template <class List, template <class> class Keep>
struct filtered;
template <class... F, template <class> class Keep>
struct filtered<functor_list<F...>, Keep> {
    using type = typename filter_functors<Keep, functor_list<>, F...>::type;
};
template <class F>
struct is_fusable : std::bool_constant<fusable_activation<F>> {};
template <class F>
struct is_gate : std::bool_constant<gate_activation<F>> {};
template <class F>
struct has_opencl : std::bool_constant<opencl_activation<F>> {};
}  // namespace detail

/// The activations a conv kernel fuses as its epilogue, in list order.
using fusable_activations =
    typename detail::filtered<activation_functors, detail::is_fusable>::type;
/// The activations a fused conv gates with (mul_with, mul_plane), in list order.
using gate_activations = typename detail::filtered<activation_functors, detail::is_gate>::type;
/// The activations the OpenCL backend runs, in list order (its activation
/// code is the 1-based position here).
using opencl_activations = typename detail::filtered<activation_functors, detail::has_opencl>::type;

/// Calls `fn.template operator()<F>()` for each functor F of `List` in order
/// until one returns true; returns whether one did.
template <class... F, class Fn>
bool any_functor(functor_list<F...>, Fn&& fn) {
    return (fn.template operator()<F>() || ...);
}

/// The Paddle types of the functors of a list, in list order.
template <class... F>
std::vector<std::string_view> functor_names(functor_list<F...>) {
    return {F::paddle_type...};
}

/// Whether `type` is the Paddle type of a functor of `List`.
template <class List>
bool names_functor(std::string_view type) {
    return any_functor(List{}, [&]<class F>() { return F::paddle_type == type; });
}

namespace detail {
/// The PIR traits of an activation op from its functor's (none without `pir_type`).
template <class F>
constexpr auto pir_names_of() {
    if constexpr (requires { F::pir_type; })
        return std::array<pir_name, 1>{{{F::pir_type, F::paddle_type, pir_form::unary}}};
    else
        return std::array<pir_name, 0>{};
}
template <class F>
constexpr auto pir_attrs_of() {
    if constexpr (requires { F::pir_attrs; })
        return std::to_array(F::pir_attrs);
    else
        return std::array<pir_attr, 0>{};
}
}  // namespace detail

/// The op for one activation functor F: Out = F(X), float32, same shape.
template <class F>
struct activation {
    static constexpr std::string_view paddle_types[] = {F::paddle_type};
    static constexpr auto pir_names = detail::pir_names_of<F>();
    static constexpr auto pir_attrs = detail::pir_attrs_of<F>();
    static constexpr in_place_rule in_place = in_place_rule::unary;
    using params = F;
    /// Point-wise in a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::point;

    static params parse(const attr_map& a, std::string_view) { return F::parse(a); }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    /// The firmware form (ops/firmware.hpp): the functor and the count.
    struct form {
        F f{};
        std::int64_t count = 0;
        constexpr auto fields() const { return std::tie(f, count); }
    };
    static constexpr std::string_view firmware_inputs[] = {"X"};
    static constexpr std::string_view firmware_output = "Out";
    static form form_of(const params& f, const op_io& io) { return {f, io.output("Out").numel()}; }
    static constexpr std::size_t scratch_bytes(const form&) { return 0; }
    static void run_form(const form& f, const firmware_io& io) {
        kernels::map(f.f, io.input<float>(0), io.output<float>(), f.count);
    }

    /// The firmware form's loop (kernels::map: vectors where F has `vec`),
    /// over ranges of the elements split over the pool (per element, so the
    /// same output for every split).
    static void run(const params& f, op_io& io) {
        const auto fm = form_of(f, io);
        const float* x = io.input("X").as<float>();
        float* out = io.output("Out").as<float>();
        constexpr std::int64_t chunk = std::int64_t{1} << 15;
        const std::int64_t tasks = (fm.count + chunk - 1) / chunk;
        parallel_tasks(io.pool, tasks, [&](std::int64_t t) {
            const std::int64_t i0 = t * chunk;
            kernels::map(fm.f, x + i0, out + i0, std::min(chunk, fm.count - i0));
        });
    }
};

using relu = activation<act::relu>;
using relu6 = activation<act::relu6>;
using leaky_relu = activation<act::leaky_relu>;
using sigmoid = activation<act::sigmoid>;
using tanh_op = activation<act::tanh>;  // not `tanh`: it would hide std's in ops
using hard_swish = activation<act::hard_swish>;
using hard_sigmoid = activation<act::hard_sigmoid>;
using swish = activation<act::swish>;
using silu = activation<act::silu>;
using exp_op = activation<act::exp>;
using thresholded_relu = activation<act::thresholded_relu>;
using gelu = activation<act::gelu>;
using log_op = activation<act::log>;  // the `_op` names: not to hide std's in ops
using floor_op = activation<act::floor>;
using sqrt_op = activation<act::sqrt>;
using abs_op = activation<act::abs>;
using mish = activation<act::mish>;
using softplus = activation<act::softplus>;
using softsign = activation<act::softsign>;
using brelu = activation<act::brelu>;
using hardtanh = activation<act::hardtanh>;
using rsqrt_op = activation<act::rsqrt>;
using square_op = activation<act::square>;
using sin_op = activation<act::sin>;
using cos_op = activation<act::cos>;
using erf_op = activation<act::erf>;
using elu = activation<act::elu>;

namespace detail {
template <class List>
struct activation_ops_of;
template <class... F>
struct activation_ops_of<functor_list<F...>> {
    using type = op_list<activation<F>...>;
};
}  // namespace detail
/// The op of every activation functor (entries of builtin_ops, ops/builtin_ops.hpp).
using activation_ops = typename detail::activation_ops_of<activation_functors>::type;

/// pow: Out = X ^ factor, float32.  The factor is the attribute `factor`
/// (default 1) or, when present, the one-element input `FactorTensor`
/// (float32), read at run time.
struct pow_op {
    static constexpr std::string_view paddle_types[] = {"pow"};
    static constexpr pir_name pir_names[] = {{"1.pow", "pow", pir_form::unary}};
    static constexpr pir_attr pir_attrs[] = {{"y", "factor"}};
    struct params {
        float factor = 1.f;
    };
    static params parse(const attr_map& a, std::string_view) {
        return {a.get<float>("factor", 1.f)};
    }

    static void check_factor(const op_io& io) {
        if (!io.has_input("FactorTensor")) return;
        const auto& f = io.input("FactorTensor");
        io.check(f.type == dtype::f32, [&] {
            return "FactorTensor must be float32, got " + std::string(name_of(f.type));
        });
        io.check(!is_known(f.shape) || f.numel() == 1, [&] {
            return "FactorTensor must hold one value, its shape is " + to_string(f.shape);
        });
    }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32,
                 [&] { return "X must be float32, got " + std::string(name_of(x.type)); });
        check_factor(io);
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        check_factor(io);
        const float f =
            io.has_input("FactorTensor") ? io.input("FactorTensor").as<float>()[0] : p.factor;
        const float* x = io.input("X").as<float>();
        auto& o = io.output("Out");
        float* out = o.as<float>();
        const std::int64_t n = o.numel();
        for (std::int64_t i = 0; i < n; ++i) out[i] = std::pow(x[i], f);
    }
};

}  // namespace litegraph::ops
