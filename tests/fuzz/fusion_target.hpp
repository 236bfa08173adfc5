// fuzz_fusion: a small random valid program (convs of random geometry and
// groups, biases, batch norms, activations, SE gates, residual adds, concats,
// pools, reshapes, and scale, dropout, swish, per-channel elementwise ops,
// transposes, softmax, slices, FC layers), written to protobuf bytes by the project's own writer
// and loaded back, then run four ways: as loaded (unfused) with the fast and with the reference
// conv kernels, and through the pass pipeline (fused) with the fast and with the reference kernels.
// All four must agree to 1e-4 of the output's scale (Winograd's bar, 1e-3, when a conv
// runs on Winograd).  Then its int8 form: post-training
// quantization (include/litegraph/quantize/ptq.hpp: every conv and FC int8, calibrated on the
// input), written and loaded back, through the pass pipeline (int8 convs with their requantize
// chains, int8 FCs, quantize ops merged into producers), run with each int8 accumulation
// (litegraph_kernel fast, reference, cortex_m: the DSP kernels in their portable form) and once
// more with the in-place pass skipped: the four must be bit-identical.  A difference, or an error
// on a valid program, is a finding (`fusion_finding`: the target aborts).
#pragma once

#include "fuzz/byte_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/quantize/ptq.hpp"

namespace litegraph::fuzz {

struct fusion_finding : std::logic_error {
    using std::logic_error::logic_error;
};

/// A program the fusion target builds: the graph, its input, and what it is.
struct fusion_case {
    graph::graph g;
    tensor x;
    std::string text;       // one line per op, for the report
    bool winograd = false;  // a conv the fast kernels run on Winograd
};

namespace fusion_detail {

struct state {
    byte_reader& in;
    graph::builder& b;
    std::mt19937 rng;
    std::ostringstream text;
    int counter = 0;
    bool winograd = false;  // fusion_case::winograd

    std::string fresh(const char* prefix) { return prefix + std::to_string(counter++); }

    tensor random(const shape_t& s, float lo, float hi) {
        tensor t(dtype::f32, s);
        std::uniform_real_distribution<float> d(lo, hi);
        for (auto& v : t.span<float>()) v = d(rng);
        return t;
    }

    std::string param(const char* prefix, tensor value) {
        graph::var_node v;
        v.name = fresh(prefix);
        v.type = dtype::f32;
        v.shape = value.shape();
        v.persistable = true;
        v.value = std::move(value);
        const auto name = v.name;
        b.declare(std::move(v));
        return name;
    }

    std::string var(const char* prefix, const shape_t& s) {
        auto name = fresh(prefix);
        shape_t declared = s;
        declared[0] = -1;
        b.declare(name, declared);
        return name;
    }
};

struct value {
    std::string name;
    shape_t shape;  // [N, C, H, W]
};

inline std::int64_t conv_out(std::int64_t in, std::int64_t k, std::int64_t d, std::int64_t p0,
                             std::int64_t p1, std::int64_t s) {
    return (in + p0 + p1 - (d * (k - 1) + 1)) / s + 1;
}

/// The activations a conv fuses (ops::fusable_activations), in list order.
inline const std::vector<std::string>& activations() {
    static const auto names = [] {
        const auto types = ops::functor_names(ops::fusable_activations{});
        return std::vector<std::string>(types.begin(), types.end());
    }();
    return names;
}

/// The activation op `type` on `x`.
inline value activation(state& st, const value& x, const std::string& type) {
    value y{st.var("a", x.shape), x.shape};
    attr_map a;
    if (type == "leaky_relu") a.set("alpha", 0.1f);
    st.b.add_op(type, {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
    st.text << type << "\n";
    return y;
}
/// Activation `which` of activations() on `x` (or none when negative).
inline value activation(state& st, const value& x, int which) {
    if (which < 0) return x;
    return activation(st, x, activations()[static_cast<std::size_t>(which)]);
}

/// conv (+ bias add) (+ batch norm) (+ activation).  `same`: stride 1 and
/// padding that keeps H x W (odd kernel).
inline value conv_block(state& st, const value& x, std::int64_t oc, bool same, bool allow_groups) {
    auto& in = st.in;
    const auto c = x.shape[1], h = x.shape[2], w = x.shape[3];
    std::int64_t groups = 1;
    if (allow_groups) {
        const int mode = in.ConsumeIntegralInRange(0, 3);
        if (mode == 1) {  // depthwise, multiplier 1 or 2
            groups = c;
            oc = c * in.ConsumeIntegralInRange(1, 2);
            if (same) oc = c;
        } else if (mode == 2) {  // a divisor of gcd(c, oc)
            std::vector<std::int64_t> divs;
            for (std::int64_t d = 1; d <= std::min(c, oc); ++d)
                if (c % d == 0 && oc % d == 0) divs.push_back(d);
            groups = divs[in.ConsumeIntegralInRange<std::size_t>(0, divs.size() - 1)];
        }
    }
    const std::int64_t ksizes[] = {1, 2, 3, 5};
    std::int64_t kh = ksizes[in.ConsumeIntegralInRange(0, 3)];
    std::int64_t kw = in.ConsumeBool() ? kh : ksizes[in.ConsumeIntegralInRange(0, 3)];
    std::int64_t stride = in.ConsumeIntegralInRange(1, 3);
    std::int64_t dil = in.ConsumeIntegralInRange(0, 3) == 0 ? 2 : 1;
    std::vector<std::int32_t> pads;
    if (same) {
        kh |= 1;
        kw |= 1;
        stride = 1;
        pads = {std::int32_t(dil * (kh / 2)), std::int32_t(dil * (kw / 2))};
    } else if (in.ConsumeBool()) {
        pads = {in.ConsumeIntegralInRange(0, 2), in.ConsumeIntegralInRange(0, 2)};
    } else {
        pads = {in.ConsumeIntegralInRange(0, 2), in.ConsumeIntegralInRange(0, 2),
                in.ConsumeIntegralInRange(0, 2), in.ConsumeIntegralInRange(0, 2)};
    }
    auto pad = [&](int k) { return std::int64_t(pads[std::size_t(k)]); };
    const std::int64_t pt = pad(0), pb = pads.size() == 4 ? pad(1) : pad(0);
    const std::int64_t pl = pads.size() == 4 ? pad(2) : pad(1),
                       pr = pads.size() == 4 ? pad(3) : pad(1);
    std::int64_t oh = conv_out(h, kh, dil, pt, pb, stride),
                 ow = conv_out(w, kw, dil, pl, pr, stride);
    if (oh < 1 || ow < 1) {  // too small an input for this window: a 1x1 conv
        kh = kw = 1;
        dil = 1;
        stride = 1;
        pads = {0, 0};
        oh = h;
        ow = w;
    }
    st.winograd =
        st.winograd || kernels::winograd_fits({x.shape[0], c, h, w, oc, kh, kw, oh, ow, stride,
                                               stride, dil, dil, pt, pb, pl, pr, groups});
    const float bound = 1.f / std::sqrt(float(c / groups * kh * kw));
    auto filter = st.param("w", st.random({oc, c / groups, kh, kw}, -bound, bound));
    const shape_t out_shape{x.shape[0], oc, oh, ow};
    value y{st.var("c", out_shape), out_shape};
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{std::int32_t(stride), std::int32_t(stride)});
    a.set("paddings", pads);
    a.set("dilations", std::vector<std::int32_t>{std::int32_t(dil), std::int32_t(dil)});
    a.set("groups", std::int32_t(groups));
    a.set("data_format", std::string("NCHW"));
    const std::string type = groups == c && groups > 1 ? "depthwise_conv2d" : "conv2d";
    st.b.add_op(type, {{"Input", {x.name}}, {"Filter", {filter}}}, {{"Output", {y.name}}}, a);
    st.text << type << " " << c << "->" << oc << " k" << kh << "x" << kw << " s" << stride << " d"
            << dil << " g" << groups << " p" << pads.size() << "(" << pt << "," << pb << "," << pl
            << "," << pr << ") " << h << "x" << w << "->" << oh << "x" << ow << "\n";
    if (in.ConsumeBool()) {  // bias
        auto bias = st.param("b", st.random({oc}, -0.5f, 0.5f));
        value z{st.var("cb", out_shape), out_shape};
        attr_map ax;
        ax.set("axis", std::int32_t{1});
        st.b.add_op("elementwise_add", {{"X", {y.name}}, {"Y", {bias}}}, {{"Out", {z.name}}}, ax);
        st.text << "elementwise_add bias\n";
        y = z;
    }
    if (in.ConsumeBool()) {  // batch norm
        auto s = st.param("bns", st.random({oc}, 0.5f, 1.5f));
        auto bb = st.param("bnb", st.random({oc}, -0.5f, 0.5f));
        auto m = st.param("bnm", st.random({oc}, -0.5f, 0.5f));
        auto v = st.param("bnv", st.random({oc}, 0.1f, 1.1f));
        value z{st.var("bn", out_shape), out_shape};
        st.b.add_op(
            "batch_norm",
            {{"X", {y.name}}, {"Scale", {s}}, {"Bias", {bb}}, {"Mean", {m}}, {"Variance", {v}}},
            {{"Y", {z.name}}}, {});
        st.text << "batch_norm\n";
        y = z;
    }
    return activation(st, y,
                      in.ConsumeIntegralInRange(-1, static_cast<int>(activations().size()) - 1));
}

/// scale (sometimes the identity remove_identity drops), dropout, a
/// standalone swish, elementwise sub/mul/max/min/div with a per-channel
/// parameter, transpose2, softmax, slice, or an FC (flatten2, mul or
/// matmul_v2 with a weight, reshape2 back to 4-D).
inline value misc_layer(state& st, const value& x) {
    auto& in = st.in;
    auto& b = st.b;
    const auto n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
    switch (in.ConsumeIntegralInRange(0, 7)) {
        case 0: {
            value y{st.var("sc", x.shape), x.shape};
            attr_map a;
            const bool identity = in.ConsumeBool();
            a.set("scale", identity ? 1.f : 0.5f + float(in.ConsumeIntegralInRange(0, 8)) / 4);
            a.set("bias", identity ? 0.f : float(in.ConsumeIntegralInRange(-4, 4)) / 4);
            a.set("bias_after_scale", in.ConsumeBool());
            b.add_op("scale", {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "scale" << (identity ? " identity" : "") << "\n";
            return y;
        }
        case 1: {
            value y{st.var("do", x.shape), x.shape};
            attr_map a;
            a.set("dropout_prob", 0.25f);
            a.set("is_test", true);
            a.set("dropout_implementation",
                  std::string(in.ConsumeBool() ? "upscale_in_train" : "downgrade_in_infer"));
            b.add_op("dropout", {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "dropout\n";
            return y;
        }
        case 2: {
            value y{st.var("sw", x.shape), x.shape};
            attr_map a;
            a.set("beta", 1.f);
            b.add_op("swish", {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "swish\n";
            return y;
        }
        case 3: {
            const char* kinds[] = {"elementwise_sub", "elementwise_mul", "elementwise_max",
                                   "elementwise_min", "elementwise_div"};
            const std::string type = kinds[in.ConsumeIntegralInRange(0, 4)];
            auto p = st.param("ep", type == "elementwise_div" ? st.random({c}, 0.5f, 2.f)
                                                              : st.random({c}, -1.f, 1.f));
            value y{st.var("ew", x.shape), x.shape};
            attr_map a;
            a.set("axis", std::int32_t{1});
            b.add_op(type, {{"X", {x.name}}, {"Y", {p}}}, {{"Out", {y.name}}}, a);
            st.text << type << " per channel\n";
            return y;
        }
        case 4: {  // transpose of the spatial dims, or channels last then back
            std::vector<std::int32_t> perm = {0, 1, 3, 2};
            shape_t s{n, c, w, h};
            if (in.ConsumeBool()) {
                perm = {0, 2, 1, 3};
                s = {n, h, c, w};
            }
            if (s[1] > 64) return x;
            value y{st.var("tr", s), s};
            attr_map a;
            a.set("axis", perm);
            b.add_op("transpose2", {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "transpose2 -> " << to_string(s) << "\n";
            return y;
        }
        case 5: {
            value y{st.var("sm", x.shape), x.shape};
            attr_map a;
            a.set("axis", std::int32_t(in.ConsumeBool() ? 1 : -1));
            b.add_op("softmax", {{"X", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "softmax\n";
            return y;
        }
        case 6: {  // slice of H (or W)
            const bool on_h = in.ConsumeBool();
            const auto dim = on_h ? h : w;
            const auto start = in.ConsumeIntegralInRange<std::int64_t>(0, dim - 1);
            const auto end = in.ConsumeIntegralInRange<std::int64_t>(start + 1, dim);
            shape_t s = x.shape;
            s[on_h ? 2 : 3] = end - start;
            value y{st.var("sl", s), s};
            attr_map a;
            a.set("axes", std::vector<std::int32_t>{on_h ? 2 : 3});
            a.set("starts", std::vector<std::int32_t>{std::int32_t(start)});
            a.set("ends", std::vector<std::int32_t>{std::int32_t(end)});
            a.set("decrease_axis", std::vector<std::int32_t>{});
            b.add_op("slice", {{"Input", {x.name}}}, {{"Out", {y.name}}}, a);
            st.text << "slice " << (on_h ? "h" : "w") << " " << start << ":" << end << "\n";
            return y;
        }
        default: {  // FC: flatten2, mul or matmul_v2, reshape2 back to [N, M, 1, 1]
            const auto k = c * h * w;
            if (k > 1024) return x;
            const auto m = in.ConsumeIntegralInRange<std::int64_t>(1, 16);
            value f{st.var("fl", {n, k}), {n, k}};
            attr_map fa;
            fa.set("axis", std::int32_t{1});
            b.add_op("flatten2", {{"X", {x.name}}}, {{"Out", {f.name}}}, fa);
            const float bound = 1.f / std::sqrt(float(k));
            auto weight = st.param("fw", st.random({k, m}, -bound, bound));
            value y{st.var("fc", {n, m}), {n, m}};
            const bool v2 = in.ConsumeBool();
            if (v2)
                b.add_op("matmul_v2", {{"X", {f.name}}, {"Y", {weight}}}, {{"Out", {y.name}}}, {});
            else
                b.add_op("mul", {{"X", {f.name}}, {"Y", {weight}}}, {{"Out", {y.name}}}, {});
            const shape_t s{n, m, 1, 1};
            value z{st.var("fr", s), s};
            attr_map ra;
            ra.set("shape", std::vector<std::int32_t>{0, std::int32_t(m), 1, 1});
            b.add_op("reshape2", {{"X", {y.name}}}, {{"Out", {z.name}}}, ra);
            st.text << "flatten2, " << (v2 ? "matmul_v2" : "mul") << " " << k << "->" << m
                    << ", reshape2\n";
            return z;
        }
    }
}

}  // namespace fusion_detail

/// Builds the random program an input describes.
inline fusion_case decode_fusion_case(std::string_view bytes) {
    using namespace fusion_detail;
    byte_reader in(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    fusion_case fc;
    graph::builder b(fc.g);
    state st{in, b, std::mt19937(in.ConsumeIntegral<std::uint32_t>()), {}, 0, false};
    const shape_t xs{in.ConsumeIntegralInRange(1, 2), in.ConsumeIntegralInRange(1, 8),
                     in.ConsumeIntegralInRange(1, 12), in.ConsumeIntegralInRange(1, 12)};
    fc.x = st.random(xs, -1.f, 1.f);
    value cur{"x", xs};
    {
        shape_t declared = xs;
        declared[0] = -1;
        b.declare("x", declared);
    }
    b.feed("x", 0);
    st.text << "x " << to_string(xs) << "\n";
    const int layers = in.ConsumeIntegralInRange(1, 6);
    for (int l = 0; l < layers && in.remaining_bytes() > 0; ++l) {
        const auto c = cur.shape[1], h = cur.shape[2], w = cur.shape[3];
        switch (in.ConsumeIntegralInRange(0, 7)) {
            case 0:
            case 1:  // conv block
                cur = conv_block(st, cur, in.ConsumeIntegralInRange<std::int64_t>(1, 12), false,
                                 true);
                break;
            case 2: {  // SE gate: global pool, 1x1 conv, relu, 1x1 conv, sigmoid, multiply
                const shape_t ps{cur.shape[0], c, 1, 1};
                value p{st.var("gp", ps), ps};
                attr_map pa;
                pa.set("pooling_type", std::string("avg"));
                pa.set("global_pooling", true);
                pa.set("ksize", std::vector<std::int32_t>{1, 1});
                b.add_op("pool2d", {{"X", {cur.name}}}, {{"Out", {p.name}}}, pa);
                st.text << "se: pool2d global avg\n";
                const auto r = in.ConsumeIntegralInRange<std::int64_t>(1, c);
                auto squeeze = st.param("sw", st.random({r, c, 1, 1}, -1.f, 1.f));
                auto excite = st.param("ew", st.random({c, r, 1, 1}, -1.f, 1.f));
                auto conv1 = [&](const value& x, const std::string& f, std::int64_t oc) {
                    const shape_t s{x.shape[0], oc, 1, 1};
                    value y{st.var("sc", s), s};
                    attr_map a;
                    a.set("strides", std::vector<std::int32_t>{1, 1});
                    a.set("paddings", std::vector<std::int32_t>{0, 0});
                    a.set("dilations", std::vector<std::int32_t>{1, 1});
                    a.set("groups", std::int32_t{1});
                    b.add_op("conv2d", {{"Input", {x.name}}, {"Filter", {f}}},
                             {{"Output", {y.name}}}, a);
                    st.text << "se: conv2d 1x1 " << x.shape[1] << "->" << oc << "\n";
                    if (in.ConsumeBool()) {
                        auto bias = st.param("sb", st.random({oc}, -0.5f, 0.5f));
                        value z{st.var("scb", s), s};
                        attr_map ax;
                        ax.set("axis", std::int32_t{1});
                        b.add_op("elementwise_add", {{"X", {y.name}}, {"Y", {bias}}},
                                 {{"Out", {z.name}}}, ax);
                        y = z;
                    }
                    return y;
                };
                auto s1 = activation(st, conv1(p, squeeze, r), "relu");
                auto s2 = activation(st, conv1(s1, excite, c),
                                     in.ConsumeBool() ? "sigmoid" : "hard_sigmoid");
                value y{st.var("se", cur.shape), cur.shape};
                if (in.ConsumeBool())
                    b.add_op("elementwise_mul", {{"X", {cur.name}}, {"Y", {s2.name}}},
                             {{"Out", {y.name}}}, {});
                else
                    b.add_op("elementwise_mul", {{"X", {s2.name}}, {"Y", {cur.name}}},
                             {{"Out", {y.name}}}, {});
                st.text << "se: elementwise_mul\n";
                cur = y;
                break;
            }
            case 3: {  // residual: a same-shape conv block added to its input
                auto branch = conv_block(st, cur, c, true, true);
                value y{st.var("res", cur.shape), cur.shape};
                if (in.ConsumeBool())
                    b.add_op("elementwise_add", {{"X", {branch.name}}, {"Y", {cur.name}}},
                             {{"Out", {y.name}}}, {});
                else
                    b.add_op("elementwise_add", {{"X", {cur.name}}, {"Y", {branch.name}}},
                             {{"Out", {y.name}}}, {});
                st.text << "residual elementwise_add\n";
                cur = in.ConsumeBool() ? activation(st, y, "relu") : y;
                break;
            }
            case 4: {  // concat of the input with a same-size conv branch on channels
                if (c > 24) break;
                auto branch =
                    conv_block(st, cur, in.ConsumeIntegralInRange<std::int64_t>(1, 8), true, false);
                const shape_t s{cur.shape[0], c + branch.shape[1], h, w};
                value y{st.var("cat", s), s};
                attr_map a;
                a.set("axis", std::int32_t{1});
                const bool first = in.ConsumeBool();
                b.add_op("concat",
                         {{"X", {first ? cur.name : branch.name, first ? branch.name : cur.name}}},
                         {{"Out", {y.name}}}, a);
                st.text << "concat\n";
                cur = y;
                break;
            }
            case 5: {  // pool
                const bool global = in.ConsumeIntegralInRange(0, 4) == 0;
                const std::int64_t k = in.ConsumeIntegralInRange(1, 3);
                const std::int64_t s = in.ConsumeIntegralInRange(1, 2);
                std::int64_t p = in.ConsumeIntegralInRange<std::int64_t>(0, k - 1);
                std::int64_t oh = global ? 1 : (h + 2 * p - k) / s + 1;
                std::int64_t ow = global ? 1 : (w + 2 * p - k) / s + 1;
                if (oh < 1 || ow < 1) break;
                const shape_t os{cur.shape[0], c, oh, ow};
                value y{st.var("pool", os), os};
                attr_map a;
                const bool avg = in.ConsumeBool();
                a.set("pooling_type", std::string(avg ? "avg" : "max"));
                a.set("global_pooling", global);
                a.set("ksize", std::vector<std::int32_t>{std::int32_t(k), std::int32_t(k)});
                a.set("strides", std::vector<std::int32_t>{std::int32_t(s), std::int32_t(s)});
                a.set("paddings", std::vector<std::int32_t>{std::int32_t(p), std::int32_t(p)});
                a.set("exclusive", in.ConsumeBool());
                b.add_op("pool2d", {{"X", {cur.name}}}, {{"Out", {y.name}}}, a);
                st.text << "pool2d " << (avg ? "avg" : "max") << (global ? " global" : "") << " k"
                        << k << " s" << s << " p" << p << "\n";
                cur = y;
                break;
            }
            case 6: {  // reshape: H and W swapped, or everything into channels
                const bool flat = in.ConsumeBool();
                const shape_t s =
                    flat ? shape_t{cur.shape[0], c * h * w, 1, 1} : shape_t{cur.shape[0], c, w, h};
                if (s[1] > 64) break;
                value y{st.var("rs", s), s};
                attr_map a;
                a.set("shape", flat ? std::vector<std::int32_t>{0, -1, 1, 1}
                                    : std::vector<std::int32_t>{0, std::int32_t(c), std::int32_t(w),
                                                                std::int32_t(h)});
                b.add_op("reshape2", {{"X", {cur.name}}}, {{"Out", {y.name}}}, a);
                st.text << "reshape2 " << to_string(s) << "\n";
                cur = y;
                break;
            }
            case 7:  // one of the other ops a model's tail has
                cur = misc_layer(st, cur);
                break;
        }
    }
    b.fetch(cur.name, 0);
    b.finish();
    fc.text = st.text.str();
    fc.winograd = st.winograd;
    return fc;
}

/// Every output of `g` on input x; with `reference`, every conv runs the
/// reference kernel (attribute litegraph_kernel).
inline std::vector<tensor> run_fusion_graph(graph::graph g, const tensor& x, bool reference) {
    if (reference)
        for (auto& op : g.ops)
            if (op.type == "conv2d" || op.type == "depthwise_conv2d" || op.type == "fused_conv2d")
                op.attrs.set("litegraph_kernel", std::string("reference"));
    runtime::program p(std::move(g));
    p.set_input(0, x);
    p.run();
    std::vector<tensor> out;
    for (std::size_t i = 0; i < p.output_count(); ++i) {
        const auto& r = p.output(i);
        tensor t(r.type, r.shape);
        if (t.bytes()) std::memcpy(t.data(), r.data, t.bytes());
        out.push_back(std::move(t));
    }
    return out;
}

/// Largest |a - b| over the output's scale (max |b|, at least 1); infinite
/// when the shapes differ or only one of a pair is NaN.
inline double scaled_diff(const tensor& a, const tensor& b) {
    if (a.shape() != b.shape() || a.type() != b.type()) return INFINITY;
    auto x = a.span<float>(), y = b.span<float>();
    double scale = 1, worst = 0;
    for (auto v : y) scale = std::max(scale, double(std::abs(v)));
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) || std::isnan(y[i])) {
            if (std::isnan(x[i]) != std::isnan(y[i])) return INFINITY;
            continue;
        }
        worst = std::max(worst, std::abs(double(x[i]) - double(y[i])));
    }
    return worst / scale;
}

/// The bar of the four float runs against each other: the fast kernels'
/// against the plain loops (docs/design.md, accuracy bars), Winograd's where a
/// conv takes that path.
inline constexpr double fusion_tolerance = 1e-4;
inline double fusion_tolerance_of(const fusion_case& fc) {
    return fc.winograd ? kernels::winograd_error_bar : fusion_tolerance;
}

/// Whether two outputs are the same bytes (and shape and dtype).
inline bool identical(const tensor& a, const tensor& b) {
    return a.shape() == b.shape() && a.type() == b.type() &&
           (a.bytes() == 0 || std::memcmp(a.data(), b.data(), a.bytes()) == 0);
}

/// The int8 leg (see the top of this file) of the float program `loaded`.
template <class Fail>
void run_int8(const graph::graph& loaded, const tensor& x, Fail&& fail) {
    graph::graph q = loaded;
    ptq::options opt;
    opt.max_error = 0;  // every quantizable op int8
    const auto report = ptq::quantize(q, {x}, opt);
    if (report.ops == 0) return;
    graph::graph back;
    try {
        back = paddle::load_from_memory(paddle::serialize_program(q), paddle::serialize_params(q))
                   .graph;
    } catch (const error& e) {
        fail(std::string("the quantized program's bytes do not load: ") + e.what());
    }
    graph::graph g8 = back, g8_no_in_place = back;
    passes::run_passes(g8);
    passes::pipeline_options skip;
    skip.skip = {"in_place"};
    passes::run_passes(g8_no_in_place, skip);
    auto with_kernel = [](graph::graph g, const char* kernel) {
        for (auto& op : g.ops)
            if (op.type == "fused_conv2d_int8" || op.type == "mul_int8")
                op.attrs.set("litegraph_kernel", std::string(kernel));
        return g;
    };
    const char* names[4] = {"int8 fast", "int8 reference", "int8 cortex_m",
                            "int8 without in_place"};
    std::vector<tensor> outs[4];
    try {
        outs[0] = run_fusion_graph(g8, x, false);
        outs[1] = run_fusion_graph(with_kernel(g8, "reference"), x, false);
        outs[2] = run_fusion_graph(with_kernel(g8, "cortex_m"), x, false);
        outs[3] = run_fusion_graph(g8_no_in_place, x, false);
    } catch (const error& e) {
        fail(std::string("the valid int8 program fails: ") + e.what());
    }
    for (int k = 1; k < 4; ++k) {
        if (outs[k].size() != outs[0].size()) fail("int8 output counts differ");
        for (std::size_t i = 0; i < outs[0].size(); ++i)
            if (!identical(outs[k][i], outs[0][i])) {
                std::ostringstream s;
                s << names[k] << " differs from " << names[0] << " on output " << i << " (shape "
                  << to_string(outs[k][i].shape()) << " vs " << to_string(outs[0][i].shape());
                if (outs[k][i].shape() == outs[0][i].shape() && outs[0][i].type() == dtype::f32)
                    s << "; max |diff| / scale " << scaled_diff(outs[k][i], outs[0][i]);
                s << ")";
                fail(s.str());
            }
    }
}

inline void run_fusion(std::string_view bytes) {
    auto fc = decode_fusion_case(bytes);
    // Through the project's writer and loader, as a user's model arrives.
    const auto topology = paddle::serialize_program(fc.g);
    const auto params = paddle::serialize_params(fc.g);
    auto fail = [&](const std::string& what) {
        throw fusion_finding("fuzz_fusion: " + what + "\nprogram:\n" + fc.text);
    };
    graph::graph loaded;
    try {
        loaded = paddle::load_from_memory(topology, params).graph;
    } catch (const error& e) {
        fail(std::string("the writer's bytes do not load: ") + e.what());
    }
    graph::graph fused = loaded;
    passes::run_passes(fused);
    std::vector<tensor> outs[4];
    const char* names[4] = {"unfused fast", "unfused reference", "fused fast", "fused reference"};
    try {
        outs[0] = run_fusion_graph(loaded, fc.x, false);
        outs[1] = run_fusion_graph(loaded, fc.x, true);
        outs[2] = run_fusion_graph(fused, fc.x, false);
        outs[3] = run_fusion_graph(fused, fc.x, true);
    } catch (const error& e) {
        fail(std::string("a valid program fails: ") + e.what());
    }
    for (int k = 1; k < 4; ++k) {
        if (outs[k].size() != outs[0].size()) fail("output counts differ");
        for (std::size_t i = 0; i < outs[0].size(); ++i) {
            const double d = scaled_diff(outs[k][i], outs[0][i]);
            if (!(d <= fusion_tolerance_of(fc))) {
                std::ostringstream s;
                s << names[k] << " differs from " << names[0] << " on output " << i << " (shape "
                  << to_string(outs[k][i].shape()) << " vs " << to_string(outs[0][i].shape())
                  << "): max |diff| / scale = " << d;
                fail(s.str());
            }
        }
    }
    run_int8(loaded, fc.x, fail);
}

}  // namespace litegraph::fuzz
