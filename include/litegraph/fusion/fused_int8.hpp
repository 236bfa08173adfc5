// fused_int8<Stages...>: the int8 conv2d / depthwise_conv2d with its
// requantize epilogue, a chain of the same kind as the fp32 fusions and run
// by the same `chain::emit` loop:
//
//   int32 acc -> rescale (in step * filter step[c]) -> bias -> activation
//             -> quantize_store (sat8(round(v / out step)))   int8 output
//             -> store / add_with / gate<...>                 float32 output
//             -> add_with / gate<...> -> quantize_store       int8 output (their float
//                                                             result quantized, the bytes
//                                                             of quantize_int8 after them)
//             -> gate<F, mul_plane_int8> -> quantize_store   the SE gate of an int8
//                                                             block: Other int8 too
//
// On x86 the fast kernels (kernels/conv_int8_fast.hpp) run the epilogue in
// vectors of the active arch unit where it has the chain (requant_vec,
// int8_float_vec, the SE gate's plane_quantize), chain::emit elsewhere.
//
// Node type `fused_conv2d_int8`; slots Input int8 [N,C,H,W], Filter int8
// [OC,C/g,KH,KW], Multiplier float32 [OC] (in step * filter step), Bias
// float32 [OC], Other float32 (add_with / gates; int8 for mul_plane_int8)
// -> Output.  Attributes: the conv's, `stages` as fused_conv2d (["rescale",
// "bias", ...], e.g. ["rescale", "bias", "relu", "quantize_store"]),
// `output_step` (> 0 when the last stage is quantize_store) and `other_step`
// (> 0, Other's step, with mul_plane_int8).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/fusion/fused.hpp"
#include "litegraph/kernels/conv_int8.hpp"
#include "litegraph/kernels/conv_int8_fast.hpp"
#include "litegraph/kernels/cortex_m/kernels.hpp"
#include "litegraph/kernels/cortex_m/requantize.hpp"
#include "litegraph/ops/int8/quantize.hpp"

namespace litegraph::fusion {

template <class S>
struct is_act_stage : std::false_type {};
template <class F>
struct is_act_stage<act<F>> : std::true_type {};

/// Whether stage S reads an int8 Other (with its step: the node's `other_step`).
template <class S>
struct reads_int8_other : std::false_type {};
template <class F>
struct reads_int8_other<gate<F, mul_plane_int8>> : std::true_type {};

template <class... Stages>
struct fused_int8 {
    using chain_type = chain<rescale, bias, Stages...>;
    static constexpr std::string_view paddle_types[] = {"fused_conv2d_int8"};
    static constexpr bool int8_kernel = true;
    static constexpr patch_kind patch = ops::conv2d::patch;  // a window layer of a patched stage
    static constexpr bool int8_out = (std::is_same_v<Stages, quantize_store> || ... || false);
    /// Whether Other is int8 (the SE gate of an int8 block, mul_plane_int8).
    static constexpr bool int8_other = (reads_int8_other<Stages>::value || ... || false);
    /// Whether the chain ends in a gate whose product is written as int8.
    static constexpr bool quantized_gate = chain_type::quantized_gate;
    /// Whether an arch unit has this chain's requantize in vectors
    /// (kernels::detail::requant_vec: int8 output, a vectorised activation
    /// or add_with).
    static constexpr bool requant_vectorizes = int8_out && !quantized_gate &&
                                               ((std::is_same_v<Stages, quantize_store> ||
                                                 kernels::epilogue::stage_vectorizes<Stages>)&&...);
    /// Whether an arch unit has this float-output chain in vectors
    /// (kernels::detail::int8_float_vec: every stage has a vector form).
    static constexpr bool float_vectorizes =
        !int8_out && (kernels::epilogue::stage_vectorizes<Stages> && ... && true);
    /// Whether the int8 output's stages between bias and quantize_store
    /// read nothing but the value (activations): requantize() runs them.
    static constexpr bool index_free_requant =
        int8_out &&
        ((std::is_same_v<Stages, quantize_store> || is_act_stage<Stages>::value) && ...);

    /// What one node keeps between runs: its filter packed for the desktop
    /// fast kernels (kernels/conv_int8_fast.hpp), for the constant filter
    /// shape inference saw, under the slot active when it was packed.
    struct state {
        const void* constant = nullptr;
        std::unique_ptr<const kernels::conv_int8_weights> weights;
        kernels::simd::isa isa = kernels::simd::isa::baseline;
    };

    /// The node's stages: rescale and bias always, then the activation and terminal.
    using stage_set_type = stage_set<rescale, bias, Stages...>;
    /// Whether a `fused_conv2d_int8` node with these attributes (its `stages`) is this type.
    static bool matches(const attr_map& a) { return stage_set_type::matches(a); }

    struct params {
        ops::conv2d::params conv;
        float output_step = 0.f;
        std::tuple<rescale, bias, Stages...> stages;
        ops::int8_detail::int8_kernel kernel = ops::int8_detail::int8_kernel::fast;
        float other_step = 0.f;  // int8_other: Other's step
    };

    static params parse(const attr_map& a, std::string_view t) {
        // litegraph_kernel picks the int8 accumulation here, not conv2d's float kernel.
        attr_map geometry = a;
        geometry.set("litegraph_kernel", std::string("fast"));
        params p{
            ops::conv2d::parse(geometry, t), 0.f, {}, ops::int8_detail::parse_int8_kernel(a, t)};
        if constexpr (int8_out) p.output_step = ops::int8_detail::parse_step(a, "output_step", t);
        if constexpr (int8_other) p.other_step = ops::int8_detail::parse_step(a, "other_step", t);
        stage_set_type::parse(p.stages, a);
        return p;
    }

    static void infer(const params& p, state& s, op_io& io) {
        s.constant = io.input("Filter").data;
        s.weights.reset();
        const auto g = ops::conv2d::resolve(p.conv, io, dtype::i8);
        auto& out = io.output("Output");
        out.type = int8_out ? dtype::i8 : dtype::f32;
        out.shape = {g.n, g.oc, g.oh, g.ow};
        stage_set_type::check(io, out.shape);
    }

    static void run(const params& p, state& s, op_io& io) {
        const auto g = ops::conv2d::resolve(p.conv, io, dtype::i8);
        const auto kg = kernels::conv_geometry::from(g);
        chain_type c{p.stages};
        auto operands = stage_set_type::read(io);
        operands.output_step = p.output_step;
        operands.other_step = p.other_step;
        stage_set_type::bind(c.stages, operands);
        using out_t = std::conditional_t<int8_out, std::int8_t, float>;
        const auto* x = io.input("Input").template as<std::int8_t>();
        const auto* f = io.input("Filter").template as<std::int8_t>();
        auto* out = io.output("Output").template as<out_t>();
        using ops::int8_detail::int8_kernel;
        if (p.kernel == int8_kernel::fast) {
            if (!run_fast(kg, c, x, f, out, s, io.pool)) run_firmware_form<fused_int8>(p, io);
        } else if (p.kernel == int8_kernel::reference) {
            std::vector<std::int64_t> scratch(
                static_cast<std::size_t>(kernels::conv_int8_scratch_words(kg)));
            run_with(kernels::conv2d_int8, kg, c, x, f, out, scratch.data());
        } else {
            std::vector<std::int64_t> scratch(
                static_cast<std::size_t>(kernels::cortex_m::conv_int8_scratch_words(kg)));
            run_with(kernels::cortex_m::conv2d_int8, kg, c, x, f, out, scratch.data());
        }
    }

    /// The desktop fast kernels (kernels/conv_int8_fast.hpp) over the filter
    /// packed once in `s` (a filter not known at inference is packed per
    /// call); false, and nothing done, when this slot has none for `kg`
    /// (the baseline, Cortex-M, a grouped conv that is not depthwise).  A
    /// batch is split over `pool` by images: each image's sums are the same
    /// whichever thread computes them, so the output is too.
    template <class Out>
    static bool run_fast(const kernels::conv_geometry& kg, const chain_type& c,
                         const std::int8_t* x, const std::int8_t* f, Out* out, state& s,
                         thread_pool* pool = nullptr) {
        if constexpr (kernels::best_is_cortex_m_dsp) {
            (void)pool;
            return false;
        } else {
            if (!kernels::conv_int8_fast_covers(kg)) return false;
            // Kept weights fit when packed for this geometry as s.isa's kernels read them.
            const bool packed = s.weights && f == s.constant &&
                                s.weights->fits(kg, kernels::detail::int8_for(s.isa).pack);
            const kernels::simd::isa slot = packed ? s.isa : kernels::simd::active();
            const kernels::detail::int8_impl impl = kernels::detail::int8_for(slot);
            if (!(kg.groups == 1 ? impl.gemm : impl.depthwise)) return false;
            // Packed here, before any split: the tasks only read the weights.
            std::unique_ptr<const kernels::conv_int8_weights> own;
            const kernels::conv_int8_weights* w = s.weights.get();
            if (!packed) {
                own = std::make_unique<const kernels::conv_int8_weights>(kg, f, impl.pack);
                w = own.get();
                if (f && f == s.constant) {
                    s.weights = std::move(own);
                    s.isa = slot;
                }
            }
            const std::int64_t tasks = image_tasks(kg, pool_threads(pool));
            if (tasks <= 1) {
                run_images(kg, 0, impl, c, x, *w, out);
                return true;
            }
            const std::int64_t per = (kg.n + tasks - 1) / tasks, image = kg.c * kg.h * kg.w;
            parallel_tasks(pool, tasks, [&](std::int64_t t) {
                const std::int64_t n0 = t * per, n1 = std::min(kg.n, n0 + per);
                if (n0 >= n1) return;
                kernels::conv_geometry part = kg;
                part.n = n1 - n0;
                run_images(part, n0, impl, c, x + n0 * image, *w, out);
            });
            return true;
        }
    }

    /// How many image ranges a conv of geometry `kg` is split into on
    /// `threads` threads: one unless the batch has several images and the
    /// conv is large enough (about 32K multiply-adds per task) to outweigh
    /// waking the threads.
    static std::int64_t image_tasks(const kernels::conv_geometry& kg, unsigned threads) {
        if (threads <= 1 || kg.n <= 1) return 1;
        const std::int64_t tasks = std::min<std::int64_t>(threads, kg.n);
        const std::int64_t macs = kg.n * kg.oc * kg.oh * kg.ow * (kg.c / kg.groups) * kg.kh * kg.kw;
        return macs >= tasks * (std::int64_t{1} << 15) ? tasks : 1;
    }

    /// Images [first, first + kg.n) of the batch through `impl`'s kernel:
    /// `x` points at image `first`, `out` at the whole output.
    template <class Out>
    static void run_images(const kernels::conv_geometry& kg, std::int64_t first,
                           const kernels::detail::int8_impl& impl, const chain_type& c,
                           const std::int8_t* x, const kernels::conv_int8_weights& w, Out* out) {
        auto conv = kg.groups == 1 ? impl.gemm : impl.depthwise;
        // The kernels' scratch: one buffer per thread, kept between calls
        // (as large as the largest conv this thread ran needs; the kernels
        // write before they read, tests/kernels/conv_int8.cpp hands them
        // garbage), instead of a zeroed allocation per call.
        static thread_local std::vector<std::int64_t> scratch;
        const auto words =
            static_cast<std::size_t>(kernels::detail::conv_int8_fast_scratch_words(kg));
        if (scratch.size() < words) scratch.resize(words);
        const std::int64_t plane = kg.oh * kg.ow;
        kernels::int8_requant_fn vec = nullptr;
        if constexpr (requant_vectorizes) vec = kernels::detail::int8_requant_for<chain_type>(impl);
        if constexpr (int8_out) {
            chain_type local = c;
            if constexpr (quantized_gate) {
                auto& g = std::get<sizeof...(Stages)>(local.stages);
                if constexpr (std::is_same_v<std::decay_t<decltype(g.mul)>, mul_plane>)
                    g.mul.quantize_run = impl.plane_quantize;
            }
            auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off,
                            const std::int32_t* v, std::int64_t count) {
                n += first;
                const std::int64_t index = (n * kg.oc + oc) * plane + off;
                if (vec)
                    vec(&local, out + index, v, count, oc, index);
                else
                    requantize(local, out, v, count, at{n, oc, index});
            };
            conv(kg, x, w, scratch.data(), kernels::int32_sink_ref(sink));
        } else {
            kernels::int8_float_fn fvec = nullptr;
            if constexpr (float_vectorizes)
                fvec = kernels::detail::int8_float_for<chain_type>(impl);
            const chain_type local = c;
            auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off,
                            const std::int32_t* v, std::int64_t count) {
                n += first;
                const at a{n, oc, (n * kg.oc + oc) * plane + off};
                const std::int64_t done = fvec ? fvec(&local, out, v, count, a) : 0;
                local.emit(out, v + done, count - done, at{n, oc, a.index + done});
            };
            conv(kg, x, w, scratch.data(), kernels::int32_sink_ref(sink));
        }
    }

    /// The firmware form (ops/firmware.hpp): the geometry, the output step
    /// (quantize_store), the stages' parameters, Other's plane and step (an
    /// int8 Other).
    struct form {
        ops::conv2d::geometry g{};
        float output_step = 0.f;
        std::tuple<rescale, bias, Stages...> stages{};
        std::int64_t other_plane = 1;
        float other_step = 0.f;
        constexpr auto fields() const {
            return std::tie(g, output_step, stages, other_plane, other_step);
        }
    };
    static constexpr std::string_view firmware_inputs[] = {"Input", "Filter", "Multiplier",
                                                           "Bias",  "Other",  "Scale"};
    static constexpr std::string_view firmware_output = "Output";
    static form form_of(const params& p, const op_io& io) {
        form f{ops::conv2d::resolve(p.conv, io, dtype::i8), p.output_step, p.stages, 1,
               p.other_step};
        if (io.input_count("Other") && io.input("Other").shape.size() == 4)
            f.other_plane = io.input("Other").shape[2] * io.input("Other").shape[3];
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form& f) {
        return static_cast<std::size_t>(scratch_words(kernels::conv_geometry::from(f.g))) *
               sizeof(std::int64_t);
    }
    /// run_heap_free, the chain bound to the operands (Multiplier, Bias, Other, Scale).
    static void run_form(const form& f, const firmware_io& io) {
        chain_type c{f.stages};
        stage_operands ops;
        ops.multiplier = io.input<float>(2);
        ops.bias = io.input<float>(3);
        ops.other = io.input<float>(4);
        ops.other_int8 = io.input<std::int8_t>(4);
        ops.scale = io.input<float>(5);
        ops.other_plane = f.other_plane;
        ops.output_step = f.output_step;
        ops.other_step = f.other_step;
        bind(c, ops);
        const auto kg = kernels::conv_geometry::from(f.g);
        auto* scratch = static_cast<std::int64_t*>(io.scratch);
        using out_t = std::conditional_t<int8_out, std::int8_t, float>;
        run_heap_free(kg, c, io.input<std::int8_t>(0), io.input<std::int8_t>(1), io.output<out_t>(),
                      scratch);
    }

    /// Points the chain's stages at their operands (a firmware network's
    /// call): multiplier, bias, output_step (quantize_store), Other.
    static void bind(chain_type& c, const stage_operands& ops) {
        stage_set_type::bind(c.stages, ops);
    }

    /// int64 words of scratch run_heap_free needs.
    static constexpr std::int64_t scratch_words(const kernels::conv_geometry& kg) noexcept {
        return kernels::conv2d_int8_best_scratch_words(kg);
    }

    /// The no-heap form (the runtime's kernel and firmware networks):
    /// kernels::conv2d_int8_best (the Cortex-M DSP kernels where the target
    /// has them, the reference elsewhere), each run of int32 accumulators
    /// through the bound chain `c`.  The one place the int8 conv is called.  Out is
    /// int8 behind quantize_store, float otherwise; scratch scratch_words(kg).
    template <class Out>
    static void run_heap_free(const kernels::conv_geometry& kg, const chain_type& c,
                              const std::int8_t* x, const std::int8_t* f, Out* out,
                              std::int64_t* scratch) noexcept {
        // The DSP kernels on Cortex-M4/M7, the reference elsewhere: same accumulators.
        run_with(kernels::conv2d_int8_best, kg, c, x, f, out, scratch);
    }

    /// run_heap_free with the accumulation `conv` (a kernel of the conv2d_int8
    /// form; scratch: what it needs).
    template <class Conv, class Out>
    static void run_with(Conv&& conv, const kernels::conv_geometry& kg, const chain_type& c,
                         const std::int8_t* x, const std::int8_t* f, Out* out,
                         std::int64_t* scratch) noexcept {
        const std::int64_t plane = kg.oh * kg.ow;
        if constexpr (int8_out) {
            // The chain's own arithmetic as one tight loop per run (the
            // requantize chain is most of an int8 layer's work otherwise).
            const chain_type local = c;
            auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off,
                            const std::int32_t* v, std::int64_t count) {
                requantize(local, out, v, count, at{n, oc, (n * kg.oc + oc) * plane + off});
            };
            conv(kg, x, f, scratch, kernels::int32_sink_ref(sink));
        } else {
            auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off,
                            const std::int32_t* v, std::int64_t count) {
                c.emit(out, v, count, at{n, oc, (n * kg.oc + oc) * plane + off});
            };
            conv(kg, x, f, scratch, kernels::int32_sink_ref(sink));
        }
    }

    /// One run of channel a.channel at flat index a.index of `out` through
    /// the int8 chain rescale -> bias -> [act] -> quantize_store
    /// (kernels::cortex_m::requantize_run: the chain's operations in its
    /// order, bit for bit chain::emit's); chain::emit for the chains whose
    /// stages read more than the value (add_with, a gate).
    static void requantize(const chain_type& c, std::int8_t* out, const std::int32_t* v,
                           std::int64_t count, const at& a) noexcept {
        if constexpr (!index_free_requant) {
            c.emit(out, v, count, a);
            return;
        } else {
            requantize_index_free(c, out + a.index, v, count, a.channel);
        }
    }
    static void requantize_index_free(const chain_type& c, std::int8_t* out, const std::int32_t* v,
                                      std::int64_t count, std::int64_t oc) noexcept {
        const auto& st = c.stages;
        const float m = std::get<0>(st).multiplier[oc];
        const bias& b = std::get<1>(st);
        const float inv = std::get<sizeof...(Stages) + 1>(st).inv_scale;
        const auto post = [&st](float x) {
            std::apply([&x](const auto&... s) { ((x = middle(s, x)), ...); }, st);
            return x;
        };
        if (b.scale)
            kernels::cortex_m::requantize_run<true>(out, v, count, m, b.scale[oc], b.values[oc],
                                                    inv, post);
        else
            kernels::cortex_m::requantize_run<false>(out, v, count, m, 0.f, b.values[oc], inv,
                                                     post);
    }
    /// The stages between the bias and quantize_store (an activation).
    template <class S>
    static float middle(const S& s, float x) noexcept {
        if constexpr (std::is_same_v<S, rescale> || std::is_same_v<S, bias> ||
                      std::is_same_v<S, quantize_store>)
            return x;
        else
            return s(x, at{});
    }
};

namespace detail {
template <class Acts>
struct int8_act_list;
template <class... Acts>
struct int8_act_list<ops::functor_list<Acts...>> {
    using type = op_list<fused_int8<act<Acts>>..., fused_int8<act<Acts>, quantize_store>...>;
};
template <class Gates>
struct int8_gate_list;
template <class... Gates>
struct int8_gate_list<ops::functor_list<Gates...>> {
    using type =
        op_list<fused_int8<gate<Gates, mul_plane>>..., fused_int8<gate<Gates, mul_with>>...,
                fused_int8<gate<Gates, mul_plane>, quantize_store>...,
                fused_int8<gate<Gates, mul_with>, quantize_store>...,
                fused_int8<gate<Gates, mul_plane_int8>>...,
                fused_int8<gate<Gates, mul_plane_int8>, quantize_store>...>;
};
}  // namespace detail

/// The closed list of int8 conv kernels the runtime can dispatch to: one per
/// fusable activation (ops::fusable_activations), with float or int8 output,
/// per gate activation (ops::gate_activations): mul_plane and mul_with with
/// and mul_plane_int8 (an int8 Other), each with float or int8 output.
using fused_int8_ops =
    typename concat_op_lists<op_list<fused_int8<>, fused_int8<quantize_store>, fused_int8<add_with>,
                                     fused_int8<add_with, quantize_store>>,
                             typename detail::int8_gate_list<ops::gate_activations>::type,
                             typename detail::int8_act_list<ops::fusable_activations>::type>::type;

}  // namespace litegraph::fusion
