// fused<Producer, Stages...>: a producer op and an epilogue chain as one op
// type.  The runtime dispatches a `fused_conv2d` node to one of the closed
// list `fused_conv_ops`; a firmware network names the types directly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/fusion/stage_names.hpp"
#include "litegraph/fusion/stages.hpp"
#include "litegraph/kernels/cortex_m/conv_f32.hpp"
#include "litegraph/ops/activation.hpp"
#include "litegraph/ops/conv2d.hpp"
#include "litegraph/ops/firmware.hpp"

namespace litegraph::fusion {

/// The identity activation (no stage).
struct no_act {
    static constexpr std::string_view paddle_type = "";
    static no_act parse(const attr_map&) { return {}; }
    float operator()(float x) const { return x; }
};

template <class T>
concept producer = requires {
    typename T::params;
    T::paddle_types[0];
};

/// Chains a depthwise kernel can finish in registers: chain<bias> and
/// chain<bias, act<F>> with F's vector form (kernels::depthwise_direct).
template <class Chain>
struct depthwise_direct_chain {
    static constexpr bool value = false;
};
template <>
struct depthwise_direct_chain<chain<bias>> {
    static constexpr bool value = true;
    using act_type = kernels::identity_act;
    static act_type act_of(const chain<bias>&) { return {}; }
};
template <class F>
requires vector_act<F>
struct depthwise_direct_chain<chain<bias, act<F>>> {
    static constexpr bool value = true;
    using act_type = F;
    static F act_of(const chain<bias, act<F>>& c) { return std::get<1>(c.stages).f; }
};

/// The direct kernels' writer of such a chain: into `out`, its bias (and
/// scale) and activation.
template <class Chain>
kernels::depthwise_direct<typename depthwise_direct_chain<Chain>::act_type> direct_of(
    const Chain& c, float* out) {
    kernels::depthwise_direct<typename depthwise_direct_chain<Chain>::act_type> d;
    d.y = out;
    d.bias = std::get<0>(c.stages).values;
    d.scale = std::get<0>(c.stages).scale;
    d.act = depthwise_direct_chain<Chain>::act_of(c);
    return d;
}

/// Whether stage S writes planes from one value each (mul_plane, its gates).
template <class S>
constexpr bool stage_broadcasts = [] {
    if constexpr (requires { S::broadcasts; })
        return S::broadcasts;
    else
        return false;
}();

template <class Producer, class... Stages>
struct fused {
    static_assert(producer<Producer>,
                  "litegraph fusion: the first argument of fused<...> must be a producer op "
                  "(conv2d, depthwise_conv2d).");
    static_assert(std::is_same_v<Producer, ops::conv2d>,
                  "litegraph fusion: only conv2d / depthwise_conv2d producers are fused so far.");
};

/// A conv2d whose rows go through `chain<Stages...>`.
template <class... Stages>
struct fused<ops::conv2d, Stages...> {
    using chain_type = chain<Stages...>;
    static constexpr std::string_view paddle_types[] = {"fused_conv2d"};
    static constexpr bool selectable_loops = ops::conv2d::selectable_loops;
    /// A fused_conv2d_int8 with the same stages after rescale, when one exists.
    static constexpr int8_form int8 = ops::conv2d::int8;
    /// Over Other under a writing terminal; over Input when depthwise (run_in_place).
    static constexpr in_place_rule in_place = in_place_rule::epilogue;
    static constexpr patch_kind patch = ops::conv2d::patch;  // a window layer of a patched stage
    static constexpr std::string_view patch_kernel = ops::conv2d::patch_kernel;  // ... on im2col

    using stage_set_type = stage_set<Stages...>;

    /// Whether a `fused_conv2d` node with these attributes (its `stages`) is this type.
    static bool matches(const attr_map& a) { return stage_set_type::matches(a); }

    struct params {
        ops::conv2d::params conv;
        std::tuple<Stages...> stages;  // activation parameters; pointers bound at run time
    };
    using state = ops::conv2d::state;  // the packed filter

    static params parse(const attr_map& a, std::string_view) {
        params p{ops::conv2d::parse(a, "fused_conv2d"), {}};
        stage_set_type::parse(p.stages, a);
        return p;
    }

    static void infer(const params& p, state& s, op_io& io) {
        ops::conv2d::infer(p.conv, s, io);
        if constexpr (!chain_type::has_bias)
            io.check(io.input_count("Scale") == 0, "a Scale needs the bias stage");
        stage_set_type::check(io, io.output("Output").shape);
    }

    static void run(const params& p, state& s, op_io& io) {
        const auto g = ops::conv2d::resolve(p.conv, io);
        chain_type c{p.stages};
        stage_set_type::bind(c.stages, stage_set_type::read(io));
        float* out = io.output("Output").template as<float>();
        const float* x = io.input("Input").template as<float>();
        const float* f = io.input("Filter").template as<float>();
        const bool in_place = static_cast<const void*>(out) == static_cast<const void*>(x);
        if (in_place) check_in_place(g, io);
        if (p.conv.kernel == ops::conv_kernel::reference) {
            run_firmware_form<fused>(p, io);
            return;
        }
        if (in_place) {
            run_in_place(p.conv, s, g, c, x, f, out, io.pool);
            return;
        }
        if constexpr ((stage_broadcasts<Stages> || ... || false))
            if (run_plane_gate(p.conv, s, g, c, x, f, out, io)) return;
        if (run_depthwise_direct(p.conv, g, c, x, f, out, io.pool)) return;
        if (run_pointwise_direct(p.conv, g, c, x, f, out, io.pool)) return;
        // The bias is a stage of the chain, so the producer adds none itself.
        // at.index is the flat index into the conv's own output [N, OC, OH, OW]
        // (for mul_plane, [N, C, 1, 1]: the plane the gate scales).
        const std::int64_t plane = g.oh * g.ow;
        ops::conv2d::produce(
            p.conv, s, g, x, f,
            [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                std::int64_t count) {
                c.emit(out, v, count, at{n, oc, (n * g.oc + oc) * plane + off});
            },
            io.pool);
    }

    /// The firmware form (ops/firmware.hpp): the geometry, the stages'
    /// parameters, Other's plane and whether the conv runs over its input.
    struct form {
        ops::conv2d::geometry g{};
        std::tuple<Stages...> stages{};
        std::int64_t other_plane = 1;
        bool in_place = false;  // Output over Input (depthwise)
        /// The firmware kernels (kernels/cortex_m/conv_f32.hpp) over a filter
        /// packed ahead of time (packed_form, pack_input); false: the row loop.
        bool packed = false;
        constexpr auto fields() const { return std::tie(g, stages, other_plane, in_place, packed); }
    };
    static constexpr std::string_view firmware_inputs[] = {"Input", "Filter", "Bias", "Other",
                                                           "Scale"};
    static constexpr std::string_view firmware_output = "Output";
    static form form_of(const params& p, const op_io& io) {
        form f{ops::conv2d::resolve(p.conv, io), p.stages, 1, false};
        if (io.input_count("Other") && io.input("Other").shape.size() == 4)
            f.other_plane = io.input("Other").shape[2] * io.input("Other").shape[3];
        const void* x = io.input("Input").data;
        f.in_place = x && x == io.output("Output").data;
        return f;
    }
    static constexpr std::size_t scratch_bytes(const form& f) {
        return f.packed ? kernels::cortex_m::conv_f32_scratch_bytes(f.g)
                        : direct_scratch_bytes(f.g, f.in_place);
    }
    /// The form a firmware network runs (`litegraph codegen`): the
    /// firmware kernels where they take the conv, the filter packed for them.
    static form packed_form(form f) {
        f.packed = kernels::cortex_m::conv_f32_fast(f.g);
        return f;
    }
    /// Floats of firmware input `slot` as form `f` reads it when it is packed
    /// (pack_input), 0 when it reads the tensor as it is.
    static std::size_t packed_floats(const form& f, std::size_t slot) {
        return f.packed && slot == 1 && kernels::cortex_m::conv_f32_is_gemm(f.g)
                   ? static_cast<std::size_t>(kernels::cortex_m::packed_filter_floats(f.g))
                   : 0;
    }
    static void pack_input(const form& f, std::size_t slot, const float* src, float* dst) {
        if (packed_floats(f, slot)) kernels::cortex_m::pack_conv_filter(f.g, src, dst);
    }
    /// run_heap_free, the chain bound to the operands (Bias, Other, Scale).
    static void run_form(const form& f, const firmware_io& io) {
        chain_type c{f.stages};
        stage_operands ops;
        ops.bias = io.input<float>(2);
        ops.other = io.input<float>(3);
        ops.scale = io.input<float>(4);
        ops.other_plane = f.other_plane;
        bind(c, ops);
        if (f.packed)
            run_packed(f.g, c, io.input<float>(0), io.input<float>(1), io.output<float>(),
                       io.scratch);
        else
            run_heap_free(f.g, c, io.input<float>(0), io.input<float>(1), io.output<float>(),
                          io.scratch);
    }

    /// The firmware kernels (form.packed): the blocked GEMM over the packed
    /// filter fp, or the direct depthwise conv (fp as the model has it, out
    /// may be x); every finished run through the chain, written once.
    /// `scratch`: kernels::cortex_m::conv_f32_scratch_bytes(g) bytes.
    static void run_packed(const ops::conv2d::geometry& g, const chain_type& c, const float* x,
                           const float* fp, float* out, void* scratch) {
        const std::int64_t plane = g.oh * g.ow;
        const chain_type local = c;
        auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                        std::int64_t count) {
            finish(local, out, v, count, at{n, oc, (n * g.oc + oc) * plane + off});
        };
        if (kernels::cortex_m::conv_f32_is_gemm(g))
            kernels::cortex_m::conv_f32_gemm(g, x, fp, scratch, sink);
        else
            kernels::cortex_m::conv_f32_depthwise(g, x, fp, scratch, sink);
    }

    /// Points the chain's stages at their operands (a firmware network's
    /// call; the runtime reads them from the node's slots).
    static void bind(chain_type& c, const stage_operands& ops) {
        stage_set_type::bind(c.stages, ops);
    }

    /// Bytes of scratch run_heap_free needs: the row loop's, and for a conv in
    /// place of its input one output plane more.
    static constexpr std::size_t direct_scratch_bytes(const ops::conv2d::geometry& g,
                                                      bool in_place) {
        return plane_offset(g) +
               (in_place ? static_cast<std::size_t>(g.oh * g.ow) * sizeof(float) : 0);
    }

    /// The no-heap form (firmware networks, firmware; the runtime's
    /// reference kernel): the direct row loop of ops::conv2d, each finished
    /// row through the chain `c` (bound), written once.  With out == x a
    /// depthwise conv runs in place of its input (see run_in_place).
    /// `scratch`: direct_scratch_bytes(g, out == x) bytes aligned for int64.
    static void run_heap_free(const ops::conv2d::geometry& g, const chain_type& c, const float* x,
                              const float* f, float* out, void* scratch) {
        const std::int64_t plane = g.oh * g.ow;
        if (static_cast<const void*>(out) == static_cast<const void*>(x)) {
            float* buf =
                reinterpret_cast<float*>(static_cast<std::byte*>(scratch) + plane_offset(g));
            ops::conv2d::for_each_row(
                g, x, f, nullptr,
                [&](std::int64_t n, std::int64_t oc, std::int64_t oh, const float* row) {
                    std::copy(row, row + g.ow, buf + oh * g.ow);
                    if (oh == g.oh - 1) c.emit(out, buf, plane, at{n, oc, (n * g.oc + oc) * plane});
                },
                scratch);
            return;
        }
        ops::conv2d::for_each_row(
            g, x, f, nullptr,
            [&](std::int64_t n, std::int64_t oc, std::int64_t oh, const float* row) {
                c.emit(out, row, g.ow, at{n, oc, (n * g.oc + oc) * plane + oh * g.ow});
            },
            scratch);
    }

    /// One run of finished values through the chain: bias [+ activation |
    /// + add_with] as one loop (the activation in firmware_act's form), any
    /// other chain through chain::emit.
    static void finish(const chain_type& c, float* out, const float* v, std::int64_t count, at a) {
        if constexpr (firmware_chain) {
            const bias& b = std::get<0>(c.stages);
            const float bv = b.values[a.channel];
            float* const o = out + a.index;
            if (b.scale)
                finish_run<true>(c, o, v, count, b.scale[a.channel], bv, a);
            else
                finish_run<false>(c, o, v, count, 1.f, bv, a);
        } else {
            c.emit(out, v, count, a);
        }
    }

private:
    template <class S>
    struct is_act : std::false_type {};
    template <class F>
    struct is_act<act<F>> : std::true_type {};
    static constexpr bool firmware_chain = [] {
        if constexpr (sizeof...(Stages) == 1)
            return (std::is_same_v<Stages, bias> && ...);
        else if constexpr (sizeof...(Stages) == 2)
            return std::is_same_v<std::tuple_element_t<0, std::tuple<Stages...>>, bias> &&
                   (std::is_same_v<std::tuple_element_t<1, std::tuple<Stages...>>, add_with> ||
                    is_act<std::tuple_element_t<1, std::tuple<Stages...>>>::value);
        else
            return false;
    }();

    /// An activation as the firmware epilogue computes it: relu, relu6 and
    /// hard_swish through fmax_num / fmin_num (VMAXNM / VMINNM), the same
    /// value but for the sign of a zero; the others as the functor does.
    template <class F>
    static float firmware_act(const F& f, float x, float inv_scale) noexcept {
        namespace cm = kernels::cortex_m;
        if constexpr (std::is_same_v<F, ops::act::relu>)
            return cm::fmax_num(x, 0.f);
        else if constexpr (std::is_same_v<F, ops::act::relu6>)
            return cm::fmin_num(cm::fmax_num(x, 0.f), f.threshold);
        else if constexpr (std::is_same_v<F, ops::act::hard_swish>)
            return x * cm::fmin_num(cm::fmax_num(x + f.offset, 0.f), f.threshold) * inv_scale;
        else
            return (void)inv_scale, f(x);
    }
    template <bool Scaled>
    static void finish_run(const chain_type& c, float* __restrict o, const float* __restrict v,
                           std::int64_t count, float k, float b, const at& a) {
        using last = std::tuple_element_t<sizeof...(Stages) - 1, std::tuple<Stages...>>;
        auto base = [&](float x) {
            if constexpr (Scaled)
                return x * k + b;
            else
                return x + b;
        };
        if constexpr (sizeof...(Stages) == 1) {
            for (std::int64_t i = 0; i < count; ++i) o[i] = base(v[i]);
        } else if constexpr (std::is_same_v<last, add_with>) {
            const float* __restrict other = std::get<1>(c.stages).other + a.index;
            for (std::int64_t i = 0; i < count; ++i) o[i] = base(v[i]) + other[i];
        } else {
            const auto f = std::get<1>(c.stages).f;
            float inv = 1.f;
            if constexpr (std::is_same_v<decltype(f), const ops::act::hard_swish>)
                inv = 1.f / f.scale;
            for (std::int64_t i = 0; i < count; ++i) o[i] = firmware_act(f, base(v[i]), inv);
        }
    }

    static constexpr std::size_t plane_offset(const ops::conv2d::geometry& g) {
        return (ops::conv2d::row_scratch_bytes(g) + 15) / 16 * 16;
    }

    static void check_in_place(const ops::conv2d::geometry& g, const op_io& io) {
        io.check(g.groups == g.c && g.c == g.oc,
                 "runs in place of its input only as a depthwise conv (groups == channels)");
        io.check(g.oh * g.ow <= g.h * g.w, [&] {
            return "an output plane larger than the input plane (" + std::to_string(g.oh) + "x" +
                   std::to_string(g.ow) + ") cannot be written in place";
        });
        io.check(!chain_type::has_terminal, "a gated depthwise conv cannot run in place");
    }

    /// A depthwise conv over its own input (TinyEngine's trick), fast kernel.
    /// Plane (n, c) of the output ends at or before the end of input plane
    /// (n, c), so an output plane only covers input planes already consumed;
    /// the fast kernel reads each input plane whole (into its padded scratch)
    /// before it emits the same output plane, planes in order (the contract of
    /// kernels::depthwise_conv2d), so the chain writes straight into the
    /// output, with no extra pass.  (The reference row loop reads input rows
    /// while it emits, so run_heap_free finishes its plane in scratch.)
    static void run_in_place(const ops::conv2d::params& p, ops::conv2d::state& s,
                             const ops::conv2d::geometry& g, const chain_type& c, const float* x,
                             const float* f, float* out, thread_pool* pool = nullptr) {
        // A smaller output plane (stride 2) written in order lands on input
        // planes already read, which another thread's channels may not have
        // read yet: the direct kernel orders its plane tasks for that
        // (ops::conv2d::depthwise_direct), the other kernels split only when
        // each output plane lies exactly on its input plane.
        if (run_depthwise_direct(p, g, c, x, f, out, pool, true)) return;
        if (g.oh * g.ow != g.h * g.w) pool = nullptr;
        const std::int64_t plane = g.oh * g.ow;
        ops::conv2d::produce(
            p, s, g, x, f,
            [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                std::int64_t count) {
                c.emit(out, v, count, at{n, oc, (n * g.oc + oc) * plane + off});
            },
            pool);
    }

    /// The SE gate (a conv to [N, C, 1, 1] whose values scale the planes of
    /// Other [N, C, H, W], mul_plane) on a pool: the conv is small, the plane
    /// products are the work.  The conv runs first (split as any conv) into
    /// a buffer (one value per plane, as it hands them to the chain), then ranges of its
    /// values go through the chain on the pool, one value per emit as before:
    /// per plane the same arithmetic for every split.  False (nothing done)
    /// on one thread or for little work.
    static bool run_plane_gate(const ops::conv2d::params& p, ops::conv2d::state& s,
                               const ops::conv2d::geometry& g, const chain_type& c, const float* x,
                               const float* f, float* out, const op_io& io) {
        if (pool_threads(io.pool) <= 1 || g.oh * g.ow != 1 || !io.input_count("Other"))
            return false;
        const std::int64_t values = g.n * g.oc;
        const std::int64_t plane = io.input("Other").numel() / std::max<std::int64_t>(1, values);
        if (values < 2 || values * plane < (std::int64_t{1} << 16)) return false;
        std::vector<float> v(static_cast<std::size_t>(values));
        ops::conv2d::produce(
            p, s, g, x, f,
            [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* r,
                std::int64_t count) { std::copy(r, r + count, v.data() + n * g.oc + oc + off); },
            io.pool);
        const std::int64_t per = std::max<std::int64_t>(1, (std::int64_t{1} << 15) / plane);
        parallel_tasks(io.pool, (values + per - 1) / per, [&](std::int64_t t) {
            for (std::int64_t i = t * per; i < std::min(values, (t + 1) * per); ++i)
                c.emit(out, v.data() + i, 1, at{i / g.oc, i % g.oc, i});
        });
        return true;
    }

    /// A fast pointwise conv of a short sum (kernels::pointwise_direct_fits)
    /// whose chain is a bias and at most one activation with a vector form
    /// runs it in registers inside the kernel (kernels::pointwise_conv2d_direct:
    /// the SGEMM path's bits); returns false for anything else.  With a
    /// pool, the planes' columns split in ranges of whole cache lines (each
    /// column one sum: the same bits for any split).
    static bool run_pointwise_direct(const ops::conv2d::params& p, const ops::conv2d::geometry& g,
                                     const chain_type& c, const float* x, const float* f,
                                     float* out, thread_pool* pool) {
        if constexpr (depthwise_direct_chain<chain_type>::value) {
            if (p.kernel == ops::conv_kernel::reference) return false;
            const auto d = direct_of(c, out);
            const auto kg = kernels::conv_geometry::from(g);
            const auto threads = static_cast<std::int64_t>(pool_threads(pool));
            const std::int64_t hw = kg.oh * kg.ow;
            // At least 1024 columns (and 32K multiply-adds) a task.
            const std::int64_t tasks =
                std::min({threads, hw / 1024, std::max<std::int64_t>(1, kg.flops() / 65536)});
            if (tasks <= 1) return kernels::pointwise_conv2d_direct(kg, x, f, d);
            if (!kernels::pointwise_conv2d_direct(kg, x, f, d, 0, 0)) return false;
            const std::int64_t per = (hw + tasks - 1) / tasks, line = 16;
            const std::int64_t step = (per + line - 1) / line * line;
            parallel_tasks(pool, tasks, [&](std::int64_t t) {
                kernels::pointwise_conv2d_direct(kg, x, f, d, t * step, (t + 1) * step);
            });
            return true;
        } else {
            (void)p, (void)g, (void)c, (void)x, (void)f, (void)out, (void)pool;
            return false;
        }
    }

    /// A fast depthwise conv whose chain is a bias and at most one activation
    /// with a vector form runs it in registers inside the kernel
    /// (kernels::depthwise_conv2d_direct); returns false for anything else.
    static bool run_depthwise_direct(const ops::conv2d::params& p, const ops::conv2d::geometry& g,
                                     const chain_type& c, const float* x, const float* f,
                                     float* out, thread_pool* pool = nullptr,
                                     bool in_place = false) {
        if constexpr (depthwise_direct_chain<chain_type>::value) {
            const auto kg = kernels::conv_geometry::from(g);
            if (p.kernel == ops::conv_kernel::reference || !kg.is_depthwise()) return false;
            const auto d = direct_of(c, out);
            ops::conv2d::depthwise_direct(pool, kg, x, f, d, in_place);
            return true;
        } else {
            (void)p, (void)g, (void)c, (void)x, (void)f, (void)out, (void)pool, (void)in_place;
            return false;
        }
    }
};

namespace detail {
template <class Acts>
struct conv_act_list;
template <class... Acts>
struct conv_act_list<ops::functor_list<Acts...>> {
    using type = op_list<fused<ops::conv2d, bias, act<Acts>>...>;
};
template <class Gates>
struct conv_gate_list;
template <class... Gates>
struct conv_gate_list<ops::functor_list<Gates...>> {
    using type = op_list<fused<ops::conv2d, bias, gate<Gates, mul_plane>>...,
                         fused<ops::conv2d, bias, gate<Gates, mul_with>>...>;
};
}  // namespace detail

/// The closed list of fused conv kernels the runtime can dispatch to: one per
/// fusable activation (ops::fusable_activations), two per gate activation
/// (ops::gate_activations: mul_plane, mul_with) and the residual add.
using fused_conv_ops =
    typename concat_op_lists<op_list<fused<ops::conv2d, bias>, fused<ops::conv2d, bias, add_with>>,
                             typename detail::conv_gate_list<ops::gate_activations>::type,
                             typename detail::conv_act_list<ops::fusable_activations>::type>::type;

}  // namespace litegraph::fusion
