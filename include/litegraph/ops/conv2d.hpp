// conv2d / depthwise_conv2d (NCHW): Output = Input (*) Filter [+ Bias].
//
// Slots: Input [N, C, H, W], Filter [OC, C/groups, KH, KW], optional Bias [OC]
// (only oneDNN-era exports carry it) -> Output [N, OC, OH, OW].
// Attributes as Paddle's: strides, paddings (2 or 4 values), dilations, groups,
// padding_algorithm (EXPLICIT / SAME / VALID; SAME resets dilation to 1),
// data_format (NCHW or AnyLayout).  Output sizes use truncating division.
// depthwise_conv2d is the same op with groups == C.
//
// Kernels, chosen by params::kernel or the (non-Paddle) attribute
// litegraph_kernel: "fast" (the default), the fast paths of kernels::conv2d
// (depthwise, 1x1 GEMM, Winograd for 3x3 stride 1, im2col + GEMM) with the
// filter prepared once per op node and kept between runs; "gemm", the same
// without Winograd (every output's sum in one order wherever it sits: a
// patched stage's convs, runtime/patches); "reference", the direct row loop
// `for_each_row`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/kernels/conv.hpp"
#include "litegraph/kernels/conv_rows.hpp"
#include "litegraph/ops/detail/window.hpp"
#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

/// Which kernel computes a conv.
enum class conv_kernel {
    fast,       // kernels::conv2d, the filter prepared once
    gemm,       // the same without Winograd: 3x3 convs on im2col + GEMM
    reference,  // conv2d::for_each_row, the direct row loop
};

/// What one conv op node keeps between runs (op.hpp: an op's state): its
/// filter prepared for kernels::conv2d.  Shape inference tells it which filter
/// is a constant (its data is known then: weights, folded constants) and drops
/// what was prepared; a run uses the prepared weights only for that same
/// pointer and filter geometry, and prepares them again when either changes.
/// A filter not known at inference (computed by the graph) is packed on every
/// call.  Each op node owns one (op_instance_of), so two nodes never share one.
class conv_state {
public:
    /// Shape inference: `constant` is the filter's data if known now, else null.
    void mark(const void* constant) {
        constant_ = constant;
        weights_.reset();
        parts_.clear();
    }

    /// The weights prepared for filter `f` under `g` (`winograd` as
    /// kernels::conv_weights takes it), or null when `f` is not the constant
    /// filter seen by shape inference.
    const kernels::conv_weights* get(const kernels::conv_geometry& g, const float* f,
                                     bool winograd) {
        if (!f || f != constant_) return nullptr;
        // The key: the filter's geometry and the path (Winograd or not: the
        // output size may decide it).
        const std::int64_t key[] = {g.oc, g.c,      g.kh,
                                    g.kw, g.groups, winograd && kernels::winograd_fits(g)};
        if (!weights_ || !std::equal(key, key + 6, key_)) {
            weights_.reset();  // a failing rebuild leaves no stale weights
            weights_ = std::make_unique<const kernels::conv_weights>(g, f, winograd);
            std::copy(key, key + 6, key_);
        }
        return weights_.get();
    }

    /// The weights of output channels [c0, c0 + sub.oc) prepared for `sub`
    /// (a conv of those channels alone, split over threads), or null like
    /// get().  Called before the tasks start, never from two threads at once.
    const kernels::conv_weights* get_part(const kernels::conv_geometry& sub, const float* f,
                                          std::int64_t c0, bool winograd) {
        if (!f || f != constant_) return nullptr;
        const std::int64_t key[] = {
            c0, sub.oc, sub.c, sub.kh, sub.kw, sub.groups, winograd && kernels::winograd_fits(sub)};
        for (auto& part : parts_)
            if (std::equal(key, key + 7, part.key)) return part.weights.get();
        const float* w = f + c0 * (sub.c / sub.groups) * sub.kh * sub.kw;
        part_weights part{{}, std::make_unique<const kernels::conv_weights>(sub, w, winograd)};
        std::copy(key, key + 7, part.key);
        parts_.push_back(std::move(part));
        return parts_.back().weights.get();
    }

private:
    struct part_weights {
        std::int64_t key[7];
        std::unique_ptr<const kernels::conv_weights> weights;
    };
    const void* constant_ = nullptr;
    std::int64_t key_[6] = {};
    std::unique_ptr<const kernels::conv_weights> weights_;
    std::vector<part_weights> parts_;
};

/// How a fast conv splits over threads: tasks of one image and a range of
/// output channels (images alone when there are enough of them; channels
/// alone for a grouped, not depthwise, conv is not split within an image).
/// A task's channels are a conv of their own (the filter's rows, for
/// depthwise the input planes too): the GEMM computes each output row and a
/// depthwise conv each plane on its own, so every output element gets the
/// same arithmetic for every split and the outputs do not depend on the
/// number of threads.
struct conv_split {
    std::int64_t images = 0, ranges = 1, per = 0;  // tasks = images * ranges
    std::int64_t tasks() const { return images * ranges; }

    static conv_split of(const kernels::conv_geometry& g, unsigned threads) {
        conv_split s{1, 1, g.oc};  // one task: not split
        const auto T = static_cast<std::int64_t>(threads);
        if (T <= 1 || g.flops() < 2e5) return s;
        s.images = g.n;
        const bool dw = g.is_depthwise();
        if (g.n >= T || (g.groups != 1 && !dw)) return s;
        const std::int64_t want = (T + g.n - 1) / g.n;
        const std::int64_t align = dw ? 1 : kernels::gemm_tile::mr;
        s.per = ((g.oc + want - 1) / want + align - 1) / align * align;
        s.ranges = (g.oc + s.per - 1) / s.per;
        return s;
    }
    /// Task t's image, first channel and geometry (n = 1, its channels).
    std::int64_t image(std::int64_t t) const { return t / ranges; }
    std::int64_t first(std::int64_t t) const { return t % ranges * per; }
    kernels::conv_geometry part(const kernels::conv_geometry& g, std::int64_t t) const {
        auto sub = g;
        sub.n = 1;
        sub.oc = std::min(per, g.oc - first(t));
        if (g.is_depthwise()) sub.c = sub.groups = sub.oc;
        return sub;
    }
    /// Task t's input: its image, and for depthwise its channels' planes.
    const float* input(const kernels::conv_geometry& g, const float* x, std::int64_t t) const {
        return x + (image(t) * g.c + (g.is_depthwise() ? first(t) : 0)) * g.h * g.w;
    }
};

struct conv2d {
    static constexpr std::string_view paddle_types[] = {"conv2d", "depthwise_conv2d"};
    static constexpr pir_name pir_names[] = {{"1.conv2d", "conv2d"},
                                             {"1.depthwise_conv2d", "depthwise_conv2d"}};
    /// litegraph_kernel = "fast" (default), "gemm" or "reference" (see
    /// ops/op.hpp and the top of this file).
    static constexpr bool selectable_loops = true;
    /// quantize_int8 makes it a fused_conv2d_int8 (ops/op.hpp).
    static constexpr int8_form int8 = int8_form::conv;
    /// A window layer of a patched stage (ops/op.hpp).
    static constexpr patch_kind patch = patch_kind::conv;
    /// ... and runs there without Winograd, whose sums depend on an output's
    /// place in its 4x4 tile (a patch's tiles start at its corner).
    static constexpr std::string_view patch_kernel = "gemm";
    struct params {
        std::vector<std::int64_t> strides{1, 1};
        std::vector<std::int64_t> paddings{0, 0};
        std::vector<std::int64_t> dilations{1, 1};
        std::int64_t groups = 1;
        detail::padding_algorithm padding = detail::padding_algorithm::explicit_pads;
        conv_kernel kernel = conv_kernel::fast;
    };
    using state = conv_state;  // the packed filter of this op node

    static params parse(const attr_map& a, std::string_view type) {
        detail::require_nchw(a, "data_format", type);
        params p;
        p.strides = a.get<std::vector<std::int64_t>>("strides", {1, 1});
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0});
        p.dilations = a.get<std::vector<std::int64_t>>("dilations", {1, 1});
        p.groups = a.get<std::int64_t>("groups", 1);
        p.padding = detail::parse_padding_algorithm(a, type);
        const auto k = a.get<std::string>("litegraph_kernel", "fast");
        if (k == "reference")
            p.kernel = conv_kernel::reference;
        else if (k == "gemm")
            p.kernel = conv_kernel::gemm;
        else if (k != "fast")
            LITEGRAPH_THROW(unsupported_error(std::string(type) + ": attribute litegraph_kernel '" +
                                              k +
                                              "' (expected \"fast\", \"gemm\" or \"reference\")"));
        return p;
    }

    /// Everything the kernel needs, resolved against the actual shapes.
    struct geometry {
        std::int64_t n, c, h, w;      // input
        std::int64_t oc, kh, kw;      // filter
        std::int64_t oh, ow;          // output (-1 when an input dim is unknown)
        std::int64_t sh, sw, dh, dw;  // strides, dilations (after SAME)
        std::int64_t pt, pb, pl, pr;  // paddings
        std::int64_t groups;
        constexpr auto fields() const {
            return std::tie(n, c, h, w, oc, kh, kw, oh, ow, sh, sw, dh, dw, pt, pb, pl, pr, groups);
        }
    };

    /// `type`: the element type Input and Filter must have (int8 for the int8 conv).
    static geometry resolve(const params& p, const op_io& io, dtype type = dtype::f32) {
        const auto& x = detail::f32_input(io, "Input", 4, type);
        const auto& f = detail::f32_input(io, "Filter", 4, type);
        io.check(is_known(f.shape),
                 [&] { return "Filter shape " + to_string(f.shape) + " is not known"; });
        detail::check_pair(io, p.strides, "strides", 1);
        detail::check_pair(io, p.dilations, "dilations", 1);
        io.check(p.groups >= 1,
                 [&] { return "attribute groups must be >= 1, got " + std::to_string(p.groups); });
        geometry g{};
        g.n = x.shape[0], g.c = x.shape[1], g.h = x.shape[2], g.w = x.shape[3];
        g.oc = f.shape[0], g.kh = f.shape[2], g.kw = f.shape[3];
        g.groups = p.groups;
        io.check(g.oc % p.groups == 0, [&] {
            return "Filter output channels " + std::to_string(g.oc) + " (Filter shape " +
                   to_string(f.shape) + ") are not divisible by groups " + std::to_string(p.groups);
        });
        if (g.c >= 0)
            io.check(g.c == f.shape[1] * p.groups, [&] {
                return "Input channels " + std::to_string(g.c) + " (Input shape " +
                       to_string(x.shape) + ") != Filter channels " + std::to_string(f.shape[1]) +
                       " * groups " + std::to_string(p.groups) + " (Filter shape " +
                       to_string(f.shape) + ")";
            });
        io.check(g.kh >= 1 && g.kw >= 1,
                 [&] { return "empty Filter window " + to_string(f.shape); });
        auto dil = p.dilations;
        const std::int64_t in[2] = {g.h, g.w}, k[2] = {g.kh, g.kw};
        auto pads = detail::resolve_padding(io, p.paddings, p.padding, in, p.strides, k, &dil);
        g.sh = p.strides[0], g.sw = p.strides[1], g.dh = dil[0], g.dw = dil[1];
        g.pt = pads[0], g.pb = pads[1], g.pl = pads[2], g.pr = pads[3];
        g.oh = g.h < 0 ? -1 : detail::conv_out_size(g.h, g.kh, g.dh, g.pt, g.pb, g.sh);
        g.ow = g.w < 0 ? -1 : detail::conv_out_size(g.w, g.kw, g.dw, g.pl, g.pr, g.sw);
        if (g.h >= 0)
            io.check(g.oh > 0, [&] {
                return "output height " + std::to_string(g.oh) + " <= 0 " + "for Input shape " +
                       to_string(x.shape);
            });
        if (g.w >= 0)
            io.check(g.ow > 0, [&] {
                return "output width " + std::to_string(g.ow) + " <= 0 " + "for Input shape " +
                       to_string(x.shape);
            });
        return g;
    }

    static void infer(const params& p, state& s, op_io& io) {
        auto g = resolve(p, io);
        detail::check_bias(io, g.oc);
        auto& out = io.output("Output");
        out.type = dtype::f32;
        out.shape = {g.n, g.oc, g.oh, g.ow};
        s.mark(io.input("Filter").data);
    }

    // Direct convolution, row by row: kernels::conv_rows (kernels/conv_rows.hpp).
    template <class RowSink>
    static void for_each_row(const geometry& g, const float* x, const float* f, const float* bias,
                             RowSink&& sink) {
        std::vector<std::byte> scratch(row_scratch_bytes(g));
        for_each_row(g, x, f, bias, static_cast<RowSink&&>(sink), scratch.data());
    }

    /// Bytes of scratch the no-heap form of for_each_row needs.
    static constexpr std::size_t row_scratch_bytes(const geometry& g) {
        return kernels::conv_rows_scratch_bytes(g);
    }

    /// The same loop without the heap (firmware): `scratch` holds
    /// row_scratch_bytes(g) bytes aligned for int64.
    template <class RowSink>
    static void for_each_row(const geometry& g, const float* x, const float* f, const float* bias,
                             RowSink&& sink, void* scratch) {
        kernels::conv_rows(g, x, f, bias, static_cast<RowSink&&>(sink), scratch);
    }

    /// Computes the conv of `x` by filter `f` (no bias) with the kernel `p`
    /// selects, handing every finished output run to
    ///   epi(n, oc, offset_in_plane, values, count)
    /// exactly once per output element (runs stay inside one plane; `values`
    /// is valid during the call only).
    /// With a pool the work is split (conv_split), with the same outputs.
    template <class Epilogue>
    static void produce(const params& p, state& s, const geometry& g, const float* x,
                        const float* f, Epilogue&& epi, thread_pool* pool = nullptr) {
        if (p.kernel == conv_kernel::reference) {
            for_each_row(g, x, f, nullptr,
                         [&](std::int64_t n, std::int64_t oc, std::int64_t oh, const float* row) {
                             epi(n, oc, oh * g.ow, row, g.ow);
                         });
            return;
        }
        const auto kg = kernels::conv_geometry::from(g);
        const bool winograd = p.kernel == conv_kernel::fast;
        // The fast kernels see every epilogue through one reference type, so
        // they are compiled once rather than once per fused kernel type.
        epilogue_ref ref(epi);
        const auto threads = static_cast<std::int64_t>(pool_threads(pool));
        if (threads > 1 && !kg.is_depthwise() && kg.flops() >= 2e5) {
            // Enough column blocks, im2col bands or Winograd blocks
            // (kernels::conv2d_units) for every thread: split those; one
            // prepared filter, no im2col or transform twice.  Few units with
            // a remainder block each (a 40x40 plane: blocks of 512, 512, 512,
            // 64 columns) would leave one thread 1024 columns of 1600: output
            // channel ranges (conv_split) are even there.
            const std::int64_t units = kernels::conv2d_units(kg, winograd);
            const bool even = kernels::conv2d_units_even(kg, winograd);
            if (units >= 4 * threads || (even && (units >= 2 * threads || units % threads == 0)) ||
                conv_split::of(kg, pool_threads(pool)).tasks() <= 1)
                if (const auto* w = s.get(kg, f, winograd)) {
                    parallel_tasks(pool, units, [&](std::int64_t u) {
                        kernels::conv2d_units(kg, x, *w, ref, u, u + 1);
                    });
                    return;
                }
        }
        if (const auto split = conv_split::of(kg, pool_threads(pool)); split.tasks() > 1) {
            const bool dw = kg.is_depthwise();
            std::vector<const kernels::conv_weights*> w(static_cast<std::size_t>(split.ranges));
            if (!dw)  // prepared here, read by the tasks
                for (std::int64_t r = 0; r < split.ranges; ++r)
                    w[r] = s.get_part(split.part(kg, r), f, split.first(r), winograd);
            const std::int64_t per_oc = kg.c / kg.groups * kg.kh * kg.kw;
            parallel_tasks(pool, split.tasks(), [&](std::int64_t t) {
                const std::int64_t n = split.image(t), c0 = split.first(t);
                auto shifted = [&](std::int64_t, std::int64_t oc, std::int64_t off, const float* v,
                                   std::int64_t count) { ref(n, c0 + oc, off, v, count); };
                const epilogue_ref part_ref(shifted);
                const auto sub = split.part(kg, t);
                const float* xs = split.input(kg, x, t);
                if (const auto* pw = w[t % split.ranges])
                    kernels::conv2d(sub, xs, *pw, part_ref);
                else
                    kernels::conv2d(sub, xs, f + c0 * per_oc, part_ref);
            });
            return;
        }
        // Depthwise reads the filter as it is: nothing to prepare.
        if (!kg.is_depthwise())
            if (const auto* w = s.get(kg, f, winograd)) {
                kernels::conv2d(kg, x, *w, ref);
                return;
            }
        kernels::conv2d(kg, x, f, ref);
    }

    /// kernels::depthwise_conv2d_direct split over the pool (conv_split: each
    /// task its image and planes, so the same outputs for every split).
    /// `in_place`: d.y is x and the output planes are smaller than the input
    /// planes (stride 2), so output plane q lands on input planes before q
    /// that other threads may still have to read: one task per plane, each
    /// waiting, before it starts, for the tasks of the input planes its
    /// output covers (earlier tasks: no deadlock, see task_flags).  The
    /// kernel reads a plane whole before it writes that plane's output.
    template <class Act>
    static void depthwise_direct(thread_pool* pool, const kernels::conv_geometry& kg,
                                 const float* x, const float* f,
                                 const kernels::depthwise_direct<Act>& d, bool in_place = false) {
        const std::int64_t in_plane = kg.h * kg.w, out_plane = kg.oh * kg.ow;
        if (in_place && out_plane != in_plane) {
            const std::int64_t planes = kg.n * kg.c;
            if (pool_threads(pool) <= 1 || kg.flops() < 2e5 || planes < 2) {
                kernels::depthwise_conv2d_direct(kg, x, f, d);
                return;
            }
            auto one = kg;
            one.n = 1, one.c = one.oc = one.groups = 1;
            task_flags read(planes);
            parallel_tasks(pool, planes, [&](std::int64_t q) {
                flag_guard done{read, q};
                // The input planes output plane q covers, q's own excluded.
                const std::int64_t last = std::min(q - 1, ((q + 1) * out_plane - 1) / in_plane);
                for (std::int64_t j = q * out_plane / in_plane; j <= last; ++j) read.wait(j);
                const std::int64_t ch = q % kg.c;
                auto part = d;
                part.y = d.y + q * out_plane;
                if (d.bias) part.bias = d.bias + ch;
                if (d.scale) part.scale = d.scale + ch;
                kernels::depthwise_conv2d_direct(one, x + q * in_plane, f + ch * kg.kh * kg.kw,
                                                 part);
            });
            return;
        }
        const auto split = conv_split::of(kg, pool_threads(pool));
        if (split.tasks() <= 1) {
            kernels::depthwise_conv2d_direct(kg, x, f, d);
            return;
        }
        const std::int64_t plane = kg.oh * kg.ow;
        parallel_tasks(pool, split.tasks(), [&](std::int64_t t) {
            const std::int64_t c0 = split.first(t);
            auto part = d;
            part.y = d.y + (split.image(t) * kg.oc + c0) * plane;
            if (d.bias) part.bias = d.bias + c0;
            if (d.scale) part.scale = d.scale + c0;
            kernels::depthwise_conv2d_direct(split.part(kg, t), split.input(kg, x, t),
                                             f + c0 * kg.kh * kg.kw, part);
        });
    }

    /// A non-owning reference to any epilogue `epi(n, oc, offset, values, count)`:
    /// one indirect call per run of finished values, little next to the run's
    /// arithmetic, and one instantiation of the kernels instead of one per type.
    class epilogue_ref {
    public:
        template <class E>
        explicit epilogue_ref(E& e)
            : obj_(static_cast<void*>(&e)),
              fn_([](void* o, std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                     std::int64_t count) { (*static_cast<E*>(o))(n, oc, off, v, count); }) {}
        void operator()(std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                        std::int64_t count) const {
            fn_(obj_, n, oc, off, v, count);
        }

    private:
        void* obj_;
        void (*fn_)(void*, std::int64_t, std::int64_t, std::int64_t, const float*, std::int64_t);
    };

    static void run(const params& p, state& s, op_io& io) {
        const auto g = resolve(p, io);
        const float* bias = io.input_count("Bias") > 0 ? io.input("Bias").as<float>() : nullptr;
        float* y = io.output("Output").as<float>();
        const float* x = io.input("Input").as<float>();
        const float* f = io.input("Filter").as<float>();
        if (p.kernel == conv_kernel::reference) {
            for_each_row(g, x, f, bias,
                         [&](std::int64_t n, std::int64_t oc, std::int64_t oh, const float* row) {
                             std::copy(row, row + g.ow, y + ((n * g.oc + oc) * g.oh + oh) * g.ow);
                         });
            return;
        }
        const auto kg = kernels::conv_geometry::from(g);
        if (kg.is_depthwise()) {  // written straight from registers, bias included
            kernels::depthwise_direct<kernels::identity_act> d;
            d.y = y;
            d.bias = bias;
            depthwise_direct(io.pool, kg, x, f, d);
            return;
        }
        const std::int64_t plane = g.oh * g.ow;
        produce(
            p, s, g, x, f,
            [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                std::int64_t count) {
                float* d = y + (n * g.oc + oc) * plane + off;
                if (!bias) {
                    std::memcpy(d, v, static_cast<std::size_t>(count) * sizeof(float));
                    return;
                }
                const float b = bias[oc];
                for (std::int64_t i = 0; i < count; ++i) d[i] = v[i] + b;
            },
            io.pool);
    }
};

}  // namespace litegraph::ops
