// A small builder of conv nets for the model-shaped tests (tests/models/
// *_shaped.cpp): named variables, conv + batch_norm (+ relu) as PaddleDetection's
// and PaddleClas's ConvBNLayer, max pool2d, reshape2, transpose2, concat; random weights.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/graph/graph.hpp"
#include "litegraph/runtime/program.hpp"
#include "passes/support_passes.hpp"
#include "support.hpp"

namespace litegraph::test {

struct net_builder {
    graph::builder& b;
    std::uint32_t seed = 1;
    int n = 0;

    std::string fresh(const std::string& stem) { return stem + "_" + std::to_string(n++); }

    std::string declare_map(const std::string& stem) {
        auto v = fresh(stem);
        b.declare(v, {-1, -1, -1, -1});
        return v;
    }

    /// conv (no bias) -> batch_norm [-> relu], as ConvBNLayer.
    std::string conv_bn(const std::string& x, std::int64_t in_c, std::int64_t out_c, int k,
                        int stride, int pad, int groups, bool relu) {
        auto w = fresh("w");
        const float scale = std::sqrt(2.f / float(in_c / groups * k * k));
        auto wt = test::random_tensor({out_c, in_c / groups, k, k}, seed++, -scale, scale);
        test::param(b, w, std::move(wt));
        auto conv = declare_map("conv");
        b.add_op(groups > 1 ? "depthwise_conv2d" : "conv2d", {{"Input", {x}}, {"Filter", {w}}},
                 {{"Output", {conv}}}, test::conv_attrs(stride, pad, groups));
        auto p = fresh("bn");
        test::param(b, p + ".scale", test::random_tensor({out_c}, seed++, 0.5f, 1.5f));
        test::param(b, p + ".bias", test::random_tensor({out_c}, seed++, -0.2f, 0.2f));
        test::param(b, p + ".mean", test::random_tensor({out_c}, seed++, -0.1f, 0.1f));
        test::param(b, p + ".var", test::random_tensor({out_c}, seed++, 0.5f, 1.5f));
        auto y = declare_map("bn_y");
        attr_map a;
        a.set("epsilon", 1e-5f);
        a.set("data_layout", std::string("NCHW"));
        a.set("is_test", true);
        b.add_op("batch_norm",
                 {{"X", {conv}},
                  {"Scale", {p + ".scale"}},
                  {"Bias", {p + ".bias"}},
                  {"Mean", {p + ".mean"}},
                  {"Variance", {p + ".var"}}},
                 {{"Y", {y}}}, a);
        return relu ? unary("relu", y) : y;
    }

    std::string unary(const std::string& type, const std::string& x) {
        auto y = declare_map(type);
        b.add_op(type, {{"X", {x}}}, {{"Out", {y}}}, {});
        return y;
    }

    /// pool2d max, kernel and stride k, padding pad (ceil mode as given).
    std::string max_pool(const std::string& x, int k, int stride, int pad, bool ceil_mode) {
        auto y = declare_map("pool");
        attr_map a;
        a.set("pooling_type", std::string("max"));
        a.set("ksize", std::vector<std::int32_t>{k, k});
        a.set("strides", std::vector<std::int32_t>{stride, stride});
        a.set("paddings", std::vector<std::int32_t>{pad, pad});
        a.set("ceil_mode", ceil_mode);
        a.set("data_format", std::string("NCHW"));
        b.add_op("pool2d", {{"X", {x}}}, {{"Out", {y}}}, a);
        return y;
    }

    std::string reshape(const std::string& x, std::vector<std::int32_t> shape, int rank) {
        auto y = fresh("reshaped");
        b.declare(y, shape_t(static_cast<std::size_t>(rank), -1));
        auto xs = fresh("xshape");
        b.declare(xs, {0, -1, -1, -1, -1});
        attr_map a;
        a.set("shape", std::move(shape));
        b.add_op("reshape2", {{"X", {x}}}, {{"Out", {y}}, {"XShape", {xs}}}, a);
        return y;
    }

    std::string transpose(const std::string& x, std::vector<std::int32_t> axis, int rank) {
        auto y = fresh("transposed");
        b.declare(y, shape_t(static_cast<std::size_t>(rank), -1));
        auto xs = fresh("xshape");
        b.declare(xs, shape_t(static_cast<std::size_t>(rank) + 1, -1));
        attr_map a;
        a.set("axis", std::move(axis));
        b.add_op("transpose2", {{"X", {x}}}, {{"Out", {y}}, {"XShape", {xs}}}, a);
        return y;
    }

    std::string concat(const std::vector<std::string>& xs, int axis, int rank) {
        auto y = fresh("concat");
        b.declare(y, shape_t(static_cast<std::size_t>(rank), -1));
        attr_map a;
        a.set("axis", std::int32_t{axis});
        b.add_op("concat", {{"X", xs}}, {{"Out", {y}}}, a);
        return y;
    }
};

}  // namespace litegraph::test
