// Fused conv kernels against the unfused ops they replace, and the promise of
// fusion: every output element is computed once and written once.
#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "support.hpp"

using namespace litegraph;
using namespace litegraph::fusion;

// Legal compositions are types the compiler accepts.
static_assert(chain<bias, act<ops::act::relu>>::has_bias);
static_assert(!chain<act<ops::act::relu>>::has_terminal);
static_assert(chain<bias, gate<ops::act::hard_sigmoid, mul_plane>>::has_terminal);
// A chain's `stages` names come from its stage declarations (fusion/stages.hpp).
static_assert(fused<ops::conv2d, bias, act<ops::act::hard_swish>>::stage_set_type::names() ==
              std::array<std::string_view, 2>{"bias", "hard_swish"});
static_assert(
    fused<ops::conv2d, bias, gate<ops::act::sigmoid, mul_with>>::stage_set_type::names() ==
    std::array<std::string_view, 3>{"bias", "sigmoid", "mul_with"});
static_assert(op_definition<fused<ops::conv2d, bias, act<ops::act::relu>>>);

namespace {

attr_map conv_attrs(int stride, int pad, int groups) {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{stride, stride});
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{groups});
    return a;
}

tensor unfused(const std::string& type, const attr_map& a, named_tensors in,
               const char* out = "Out") {
    return std::move(invoke(type, a, in, {{out, 1}}).slots[0].second[0]);
}

}  // namespace

TEST_CASE("fused conv + bias + activation equals conv, elementwise_add, activation") {
    struct shape_case {
        std::int64_t n, c, h, w, oc, k;
        int stride, pad, groups;
    };
    for (auto sc : {shape_case{1, 3, 9, 11, 8, 3, 1, 1, 1}, shape_case{2, 4, 8, 8, 4, 3, 2, 1, 4},
                    shape_case{1, 6, 5, 7, 6, 1, 1, 0, 2}}) {
        auto x = test::random_tensor({sc.n, sc.c, sc.h, sc.w}, 1);
        auto f = test::random_tensor({sc.oc, sc.c / sc.groups, sc.k, sc.k}, 2);
        auto b = test::random_tensor({sc.oc}, 3);
        auto ca = conv_attrs(sc.stride, sc.pad, sc.groups);
        auto conv =
            unfused("conv2d", ca, named_tensors{}.add("Input", x).add("Filter", f), "Output");
        attr_map add_a;
        add_a.set("axis", std::int32_t{1});
        auto added = unfused("elementwise_add", add_a, named_tensors{}.add("X", conv).add("Y", b));
        // Every activation a conv fuses (ops::fusable_activations).
        const auto types = ops::functor_names(ops::fusable_activations{});
        const std::vector<std::string> fusable(types.begin(), types.end());
        REQUIRE(fusable.size() >= 7);
        for (const std::string& act_type : fusable) {
            INFO(act_type);
            auto expect = unfused(act_type, {}, named_tensors{}.add("X", added));
            attr_map fa = ca;
            fa.set("stages", test::conv_stages(act_type));
            auto got = invoke<runtime::op_table>(
                "fused_conv2d", fa, named_tensors{}.add("Input", x).add("Filter", f).add("Bias", b),
                {{"Output", 1}});
            const auto& y = got.get("Output");
            CHECK(y.shape() == expect.shape());
            CHECK(test::max_rel_diff(y.span<float>(), expect.span<float>()) < 1e-5);
        }
    }
}

TEST_CASE("a fused conv with a Scale (folded batch norm) equals conv, batch_norm, activation") {
    // The bias stage computes v * k + b', the operations batch_norm performs
    // (x * k + b) in the same order: bit for bit, unless the compiler contracts
    // one of them into an FMA.  Shapes: GEMM (1x1, 3x3), the direct depthwise
    // kernel, vector runs with scalar tails; fast and reference kernels;
    // plain stores and a mul_with terminal.
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || defined(__aarch64__)
    constexpr double exact = 1e-6;
#else
    constexpr double exact = 0;
#endif
    struct shape_case {
        std::int64_t n, c, h, w, oc, k;
        int stride, pad, groups;
    };
    for (auto sc :
         {shape_case{1, 3, 9, 37, 8, 3, 1, 1, 1}, shape_case{2, 5, 8, 41, 5, 3, 1, 1, 5},
          shape_case{1, 6, 7, 19, 6, 5, 2, 2, 6}, shape_case{1, 6, 5, 23, 10, 1, 1, 0, 1}}) {
        CAPTURE(sc.c);
        CAPTURE(sc.k);
        CAPTURE(sc.groups);
        auto x = test::random_tensor({sc.n, sc.c, sc.h, sc.w}, 11);
        auto f = test::random_tensor({sc.oc, sc.c / sc.groups, sc.k, sc.k}, 12);
        auto gamma = test::random_tensor({sc.oc}, 13, 0.5f, 1.5f);
        auto beta = test::random_tensor({sc.oc}, 14);
        auto mean = test::random_tensor({sc.oc}, 15);
        auto var = test::random_tensor({sc.oc}, 16, 0.1f, 2.f);
        std::vector<float> kv(static_cast<std::size_t>(sc.oc)), bv(kv.size());
        for (std::size_t c = 0; c < kv.size(); ++c) {
            kv[c] = gamma.span<float>()[c] * (1.f / std::sqrt(var.span<float>()[c] + 1e-5f));
            bv[c] = beta.span<float>()[c] - mean.span<float>()[c] * kv[c];
        }
        auto k = tensor::from<float>({sc.oc}, kv), b = tensor::from<float>({sc.oc}, bv);
        for (const char* kernel : {"fast", "reference"}) {
            CAPTURE(kernel);
            auto ca = conv_attrs(sc.stride, sc.pad, sc.groups);
            ca.set("litegraph_kernel", std::string(kernel));
            auto conv =
                unfused("conv2d", ca, named_tensors{}.add("Input", x).add("Filter", f), "Output");
            attr_map bn_a;
            bn_a.set("epsilon", 1e-5f);
            auto normalised = unfused("batch_norm", bn_a,
                                      named_tensors{}
                                          .add("X", conv)
                                          .add("Scale", gamma)
                                          .add("Bias", beta)
                                          .add("Mean", mean)
                                          .add("Variance", var),
                                      "Y");
            // A plain-loop baseline of the normalisation, in double.
            const auto cs = conv.span<float>(), ns = normalised.span<float>();
            const std::int64_t plane = conv.numel() / (sc.n * sc.oc);
            double worst = 0;
            for (std::int64_t i = 0; i < conv.numel(); ++i) {
                const auto c = static_cast<std::size_t>((i / plane) % sc.oc);
                const double want = (double(cs[i]) - mean.span<float>()[c]) /
                                        std::sqrt(double(var.span<float>()[c]) + 1e-5) *
                                        gamma.span<float>()[c] +
                                    beta.span<float>()[c];
                worst = std::max(worst, std::abs(ns[i] - want) / std::max(1.0, std::abs(want)));
            }
            CHECK(worst < 1e-5);
            for (std::string act_type : {"", "relu", "hard_swish", "sigmoid"}) {
                CAPTURE(act_type);
                auto expect = act_type.empty()
                                  ? normalised
                                  : unfused(act_type, {}, named_tensors{}.add("X", normalised));
                attr_map fa = ca;
                fa.set("stages", test::conv_stages(act_type));
                auto got = invoke<runtime::op_table>(
                    "fused_conv2d", fa,
                    named_tensors{}.add("Input", x).add("Filter", f).add("Scale", k).add("Bias", b),
                    {{"Output", 1}});
                const auto& y = got.get("Output");
                CHECK(y.shape() == expect.shape());
                CHECK(test::max_abs_diff(y.span<float>(), expect.span<float>()) <= exact);
            }
            // The gated form: other * hard_sigmoid(conv * k + b').
            auto other = test::random_tensor(conv.shape(), 17);
            auto hs = unfused("hard_sigmoid", {}, named_tensors{}.add("X", normalised));
            auto expect =
                unfused("elementwise_mul", {}, named_tensors{}.add("X", other).add("Y", hs));
            attr_map ga = ca;
            ga.set("stages", test::conv_stages("hard_sigmoid", "mul_with"));
            auto got = invoke<runtime::op_table>("fused_conv2d", ga,
                                                 named_tensors{}
                                                     .add("Input", x)
                                                     .add("Filter", f)
                                                     .add("Scale", k)
                                                     .add("Bias", b)
                                                     .add("Other", other),
                                                 {{"Output", 1}});
            CHECK(test::max_abs_diff(got.get("Output").span<float>(), expect.span<float>()) <=
                  exact);
        }
    }
}

TEST_CASE("a fused conv's Scale must hold one float per output channel") {
    auto x = test::random_tensor({1, 3, 5, 5}, 1);
    auto f = test::random_tensor({4, 3, 3, 3}, 2);
    auto b = test::random_tensor({4}, 3);
    auto k = test::random_tensor({3}, 4);
    auto fa = conv_attrs(1, 1, 1);
    fa.set("stages", test::conv_stages(""));
    CHECK_THROWS_WITH_AS(
        invoke<runtime::op_table>(
            "fused_conv2d", fa,
            named_tensors{}.add("Input", x).add("Filter", f).add("Scale", k).add("Bias", b),
            {{"Output", 1}}),
        doctest::Contains("Scale [3] must hold one float32 per output channel (4)"), shape_error);
}

TEST_CASE("the SE gate: conv -> add(bias) -> hard_sigmoid -> mul(block input) in one kernel") {
    const std::int64_t n = 2, c = 8, h = 5, w = 7;
    auto block_in = test::random_tensor({n, c, h, w}, 4);
    auto pooled = test::random_tensor({n, c, 1, 1}, 5);
    auto f = test::random_tensor({c, c, 1, 1}, 6);
    auto b = test::random_tensor({c}, 7);
    auto ca = conv_attrs(1, 0, 1);
    auto conv =
        unfused("conv2d", ca, named_tensors{}.add("Input", pooled).add("Filter", f), "Output");
    attr_map add_a;
    add_a.set("axis", std::int32_t{1});
    auto added = unfused("elementwise_add", add_a, named_tensors{}.add("X", conv).add("Y", b));
    auto g = unfused("hard_sigmoid", {}, named_tensors{}.add("X", added));
    attr_map mul_a;
    mul_a.set("axis", std::int32_t{-1});
    auto expect = unfused("elementwise_mul", mul_a, named_tensors{}.add("X", block_in).add("Y", g));
    attr_map fa = ca;
    fa.set("stages", test::conv_stages("hard_sigmoid", "mul_plane"));
    auto got = invoke<runtime::op_table>(
        "fused_conv2d", fa,
        named_tensors{}.add("Input", pooled).add("Filter", f).add("Bias", b).add("Other", block_in),
        {{"Output", 1}});
    CHECK(got.get("Output").shape() == shape_t{n, c, h, w});
    CHECK(test::max_rel_diff(got.get("Output").span<float>(), expect.span<float>()) < 1e-6);
}

namespace {
/// An instrumented output: counts the writes each element gets.
struct counting_mul {
    [[maybe_unused]] static constexpr bool is_terminal = true;
    [[maybe_unused]] static constexpr bool broadcasts = false;
    const float* other = nullptr;
    std::map<std::int64_t, int>* writes = nullptr;
    void write(float* out, const at& a, float v) const {
        ++(*writes)[a.index];
        out[a.index] = other[a.index] * v;
    }
};
}  // namespace

TEST_CASE("a fused conv -> hard_sigmoid -> mul writes each output element exactly once") {
    const std::int64_t n = 2, c = 3, h = 6, w = 5, oc = 4;
    auto x = test::random_tensor({n, c, h, w}, 8);
    auto f = test::random_tensor({oc, c, 3, 3}, 9);
    auto b = test::random_tensor({oc}, 10);
    auto other = test::random_tensor({n, oc, h, w}, 11);
    tensor out(dtype::f32, {n, oc, h, w});
    std::map<std::int64_t, int> writes;
    auto ca = conv_attrs(1, 1, 1);
    auto p = ops::conv2d::parse(ca, "conv2d");
    op_io io;
    tensor_ref xr = x.ref("x"), fr = f.ref("f");
    io.inputs = {{"Input", {&xr}}, {"Filter", {&fr}}};
    auto geo = ops::conv2d::resolve(p, io);
    chain<bias, gate<ops::act::hard_sigmoid, counting_mul>> ch{
        {bias{b.span<float>().data()},
         gate<ops::act::hard_sigmoid, counting_mul>{{}, {other.span<float>().data(), &writes}}}};
    // The same row producer and emit loop as fused<conv2d, ...>::run.
    ops::conv2d::for_each_row(
        geo, x.span<float>().data(), f.span<float>().data(), nullptr,
        [&](std::int64_t in, std::int64_t ic, std::int64_t oh, const float* row) {
            ch.emit(out.span<float>().data(), row, geo.ow,
                    at{in, ic, ((in * geo.oc + ic) * geo.oh + oh) * geo.ow});
        });
    CHECK(writes.size() == static_cast<std::size_t>(out.numel()));
    bool once = true;
    for (auto& [i, k] : writes) once = once && k == 1;
    CHECK(once);
}

TEST_CASE("a fused node's stages: one list-of-strings attribute the stage helpers read and build") {
    attr_map a;
    CHECK(stages_of(a).empty());
    CHECK(chain_activation(a).empty());
    CHECK(chain_terminal(a) == "store");
    // A list of strings is an attribute type of its own (not a string).
    a.set("stages", std::vector<std::string>{"bias"});
    CHECK(a.get<std::vector<std::string>>("stages", {}) == std::vector<std::string>{"bias"});
    CHECK_THROWS_AS(a.get<std::string>("stages", ""), unsupported_error);
    CHECK(stage_set<bias>::matches(a));
    // The names come from the stage declarations; a gate is its activation, then its multiply.
    append_stage<act<ops::act::hard_sigmoid>>(a);
    append_stage<mul_plane>(a);
    CHECK(stages_of(a) == std::vector<std::string>{"bias", "hard_sigmoid", "mul_plane"});
    CHECK(chain_activation(a) == "hard_sigmoid");
    CHECK(chain_terminal(a) == "mul_plane");
    CHECK(stage_set<bias, gate<ops::act::hard_sigmoid, mul_plane>>::matches(a));
    CHECK(fused<ops::conv2d, bias, gate<ops::act::hard_sigmoid, mul_plane>>::matches(a));
    CHECK_FALSE(fused<ops::conv2d, bias, gate<ops::act::sigmoid, mul_plane>>::matches(a));
    CHECK_FALSE(stage_set<bias, act<ops::act::hard_sigmoid>>::matches(a));
    // The int8 conv's chain starts with its rescale.
    prepend_stage<rescale>(a);
    CHECK(fused_int8<gate<ops::act::hard_sigmoid, mul_plane>>::matches(a));
    CHECK_FALSE(fused<ops::conv2d, bias, gate<ops::act::hard_sigmoid, mul_plane>>::matches(a));
    set_stages<stage_set<rescale, bias, act<ops::act::relu>, quantize_store>>(a);
    CHECK(stages_of(a) == std::vector<std::string>{"rescale", "bias", "relu", "quantize_store"});
    CHECK(chain_terminal(a) == "quantize_store");
    CHECK(fused_int8<act<ops::act::relu>, quantize_store>::matches(a));
}

TEST_CASE("a fused_conv2d node without stages matches no fused kernel") {
    auto fa = conv_attrs(1, 1, 1);
    CHECK_THROWS_WITH_AS(make_instance<runtime::op_table>("fused_conv2d", fa),
                         doctest::Contains("no kernel of this type matches its attributes"),
                         unsupported_error);
    fa.set("stages", std::vector<std::string>{"relu", "bias"});  // not a chain's order
    CHECK_THROWS(make_instance<runtime::op_table>("fused_conv2d", fa));
    fa.set("stages", std::vector<std::string>{"bias", "relu"});
    CHECK(make_instance<runtime::op_table>("fused_conv2d", fa) != nullptr);
}
