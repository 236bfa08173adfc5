// SqueezeNet 1.0 and 1.1 (Iandola et al., 2016; torchvision's layer list) as a
// litegraph graph in Paddle's op vocabulary, with deterministic weights: the
// built-in example that needs no download, and the network of the memory story.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/core/error.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/runtime/program.hpp"

namespace litegraph::generate {

/// A small, portable generator (splitmix64): the same weights on every machine
/// and standard library, unlike std's distributions.
class weight_stream {
public:
    explicit weight_stream(std::uint64_t seed) : state_(seed) {}
    /// Uniform in [-1, 1).
    float next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return static_cast<float>(static_cast<double>(z >> 40) / double(1ULL << 23) - 1.0);
    }

private:
    std::uint64_t state_;
};

struct squeezenet_options {
    std::string version = "1_0";  // "1_0" or "1_1"
    int input_size = 128;         // H = W
    int classes = 1000;
    std::uint64_t seed = 2016;
};

namespace detail {

class net_builder {
public:
    net_builder(graph::graph& g, std::uint64_t seed) : b_(g), w_(seed) {}

    std::string input(int size) {
        b_.declare("image", {-1, 3, size, size});
        b_.feed("image", 0);
        return "image";
    }

    /// conv2d (no bias, as Paddle exports it) + elementwise_add(bias, axis 1) + relu.
    std::string conv_relu(const std::string& x, int cin, int cout, int k, int stride, int pad,
                          const std::string& name) {
        auto w = param(name + ".w_0", {cout, cin, k, k}, std::sqrt(6.f / float(cin * k * k)));
        auto bias = param(name + ".b_0", {cout}, 0.05f);
        auto conv = tmp(name + ".tmp_0"), add = tmp(name + ".tmp_1"), out = tmp(name + ".tmp_2");
        attr_map a;
        a.set("strides", std::vector<std::int32_t>{stride, stride});
        a.set("paddings", std::vector<std::int32_t>{pad, pad});
        a.set("dilations", std::vector<std::int32_t>{1, 1});
        a.set("groups", std::int32_t{1});
        a.set("padding_algorithm", std::string("EXPLICIT"));
        a.set("data_format", std::string("NCHW"));
        b_.add_op(op_type<ops::conv2d>(), {{"Input", {x}}, {"Filter", {w}}}, {{"Output", {conv}}},
                  a);
        attr_map add_a;
        add_a.set("axis", std::int32_t{1});
        b_.add_op(std::string(ops::elementwise::type_of(ops::elementwise::kind::add)),
                  {{"X", {conv}}, {"Y", {bias}}}, {{"Out", {add}}}, add_a);
        b_.add_op(std::string(ops::act::relu::paddle_type), {{"X", {add}}}, {{"Out", {out}}}, {});
        return out;
    }

    std::string max_pool(const std::string& x) {
        auto out = tmp("pool2d_" + std::to_string(pools_++) + ".tmp_0");
        attr_map a;
        a.set("pooling_type", std::string("max"));
        a.set("ksize", std::vector<std::int32_t>{3, 3});
        a.set("strides", std::vector<std::int32_t>{2, 2});
        a.set("paddings", std::vector<std::int32_t>{0, 0});
        a.set("ceil_mode", true);
        a.set("global_pooling", false);
        a.set("exclusive", true);
        a.set("adaptive", false);
        a.set("padding_algorithm", std::string("EXPLICIT"));
        a.set("data_format", std::string("NCHW"));
        b_.add_op(op_type<ops::pool2d>(), {{"X", {x}}}, {{"Out", {out}}}, a);
        return out;
    }

    /// Fire module: squeeze 1x1, then expand 1x1 and expand 3x3 concatenated on channels.
    std::string fire(const std::string& x, int cin, int squeeze, int e1, int e3) {
        std::string n = "fire" + std::to_string(fires_++);
        auto s = conv_relu(x, cin, squeeze, 1, 1, 0, n + "_squeeze1x1");
        auto a = conv_relu(s, squeeze, e1, 1, 1, 0, n + "_expand1x1");
        auto c = conv_relu(s, squeeze, e3, 3, 1, 1, n + "_expand3x3");
        auto out = tmp(n + "_concat.tmp_0");
        attr_map at;
        at.set("axis", std::int32_t{1});
        b_.add_op(op_type<ops::concat>(), {{"X", {a, c}}}, {{"Out", {out}}}, at);
        return out;
    }

    std::string head(const std::string& x, int cin, int classes) {
        auto c = conv_relu(x, cin, classes, 1, 1, 0, "classifier_conv");
        auto pooled = tmp("global_pool.tmp_0"), flat = tmp("flatten.tmp_0"),
             xshape = tmp("flatten.xshape"), prob = tmp("softmax.tmp_0");
        attr_map p;
        p.set("pooling_type", std::string("avg"));
        p.set("ksize", std::vector<std::int32_t>{1, 1});
        p.set("global_pooling", true);
        p.set("strides", std::vector<std::int32_t>{1, 1});
        p.set("paddings", std::vector<std::int32_t>{0, 0});
        p.set("exclusive", true);
        p.set("adaptive", false);
        p.set("ceil_mode", false);
        p.set("data_format", std::string("NCHW"));
        b_.add_op(op_type<ops::pool2d>(), {{"X", {c}}}, {{"Out", {pooled}}}, p);
        attr_map f;
        f.set("axis", std::int32_t{1});
        b_.add_op(op_type<ops::flatten2>(), {{"X", {pooled}}},
                  {{"Out", {flat}}, {"XShape", {xshape}}}, f);
        attr_map s;
        s.set("axis", std::int32_t{-1});
        b_.add_op(op_type<ops::softmax>(), {{"X", {flat}}}, {{"Out", {prob}}}, s);
        b_.fetch(prob, 0);
        return prob;
    }

    void finish() { b_.finish(); }

private:
    std::string tmp(const std::string& name) {
        b_.declare(name, {-1});
        return name;
    }
    std::string param(const std::string& name, shape_t shape, float scale) {
        graph::var_node v;
        v.name = name;
        v.shape = shape;
        v.persistable = true;
        tensor t(dtype::f32, shape);
        for (auto& x : t.span<float>()) x = scale * w_.next();
        v.value = std::move(t);
        b_.declare(std::move(v));
        return name;
    }

    graph::builder b_;
    weight_stream w_;
    int fires_ = 2, pools_ = 0;
};

}  // namespace detail

/// Records every activation's shape in the graph (batch as -1), as Paddle's
/// exports do, by running shape inference once for one image.
inline void declare_shapes(graph::graph& g, int input_size) {
    runtime::program p(g);
    p.set_input(0, tensor(dtype::f32, {1, 3, input_size, input_size}));
    p.prepare_plan();
    for (std::size_t v = 0; v < g.vars.size(); ++v) {
        auto& var = g.vars[v];
        const auto& inferred = p.var(static_cast<int>(v)).shape;
        if (var.persistable || inferred.empty() || !is_known(inferred) || numel(inferred) == 0)
            continue;
        var.shape = inferred;
        var.shape[0] = -1;
    }
}

/// Builds SqueezeNet `opt.version` ("1_0" or "1_1") for NCHW input
/// [-1, 3, input_size, input_size]; the output is a softmax over `classes`.
inline graph::graph squeezenet(const squeezenet_options& opt) {
    if (opt.version != "1_0" && opt.version != "1_1")
        throw usage_error("unknown SqueezeNet version '" + opt.version + "' (1_0 or 1_1)");
    if (opt.input_size < 32 || opt.input_size > 1024)
        throw usage_error("SqueezeNet input size must be in [32, 1024], got " +
                          std::to_string(opt.input_size));
    graph::graph g;
    detail::net_builder n(g, opt.seed + (opt.version == "1_1" ? 1 : 0));
    auto x = n.input(opt.input_size);
    if (opt.version == "1_0") {
        x = n.conv_relu(x, 3, 96, 7, 2, 0, "conv1");
        x = n.max_pool(x);
        x = n.fire(x, 96, 16, 64, 64);
        x = n.fire(x, 128, 16, 64, 64);
        x = n.fire(x, 128, 32, 128, 128);
        x = n.max_pool(x);
        x = n.fire(x, 256, 32, 128, 128);
        x = n.fire(x, 256, 48, 192, 192);
        x = n.fire(x, 384, 48, 192, 192);
        x = n.fire(x, 384, 64, 256, 256);
        x = n.max_pool(x);
        x = n.fire(x, 512, 64, 256, 256);
    } else {
        x = n.conv_relu(x, 3, 64, 3, 2, 0, "conv1");
        x = n.max_pool(x);
        x = n.fire(x, 64, 16, 64, 64);
        x = n.fire(x, 128, 16, 64, 64);
        x = n.max_pool(x);
        x = n.fire(x, 128, 32, 128, 128);
        x = n.fire(x, 256, 32, 128, 128);
        x = n.max_pool(x);
        x = n.fire(x, 256, 48, 192, 192);
        x = n.fire(x, 384, 48, 192, 192);
        x = n.fire(x, 384, 64, 256, 256);
        x = n.fire(x, 512, 64, 256, 256);
    }
    n.head(x, 512, opt.classes);
    n.finish();
    declare_shapes(g, opt.input_size);
    return g;
}

}  // namespace litegraph::generate
