// batch_norm (inference) against a plain-loop baseline: NCHW of rank 2 to 5 and NHWC.
#include "litegraph/ops/batch_norm.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_batch_norm_test {

namespace {

struct bn_inputs {
    tensor x, scale, bias, mean, var;
    named_tensors slots() const {
        named_tensors in;
        in.add("X", x).add("Scale", scale).add("Bias", bias).add("Mean", mean);
        in.add("Variance", var);
        return in;
    }
};

bn_inputs make(const shape_t& xs, std::int64_t c) {
    return {test::random_tensor(xs, 31, -3.f, 3.f), test::random_tensor({c}, 32, 0.5f, 2.f),
            test::random_tensor({c}, 33), test::random_tensor({c}, 34),
            test::random_tensor({c}, 35, 0.f, 2.f)};
}

attr_map attrs(float eps, const std::string& layout) {
    attr_map a;
    a.set("epsilon", eps);
    a.set("data_layout", layout);
    a.set("is_test", true);
    a.set("use_global_stats", false);
    a.set("momentum", 0.9f);
    return a;
}

// y[n, k, ...] = (x - mean[k]) / sqrt(var[k] + eps) * scale[k] + bias[k];
// `channel_of(i)` gives the channel of flat element i.
template <class F>
std::vector<float> baseline(const bn_inputs& t, float eps, F channel_of) {
    auto x = t.x.span<float>();
    auto s = t.scale.span<float>(), b = t.bias.span<float>(), m = t.mean.span<float>(),
         v = t.var.span<float>();
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        auto k = channel_of(i);
        y[i] = float((double(x[i]) - m[k]) / std::sqrt(double(v[k]) + eps) * s[k] + b[k]);
    }
    return y;
}

}  // namespace

TEST_CASE("batch_norm matches the baseline for NCHW inputs of rank 2 to 5") {
    const std::vector<shape_t> shapes = {
        {4, 6}, {2, 3, 7}, {2, 5, 4, 3}, {1, 3, 2, 3, 4}, {1, 32, 1, 1}};
    for (const auto& s : shapes)
        for (float eps : {1e-5f, 1e-3f}) {
            CAPTURE(to_string(s));
            const std::int64_t c = s[1];
            std::int64_t inner = 1;
            for (std::size_t d = 2; d < s.size(); ++d) inner *= s[d];
            auto t = make(s, c);
            auto out = invoke("batch_norm", attrs(eps, "NCHW"), t.slots(), {{"Y", 1}});
            const auto& y = out.get("Y");
            REQUIRE(y.shape() == s);
            auto expect = baseline(t, eps, [&](std::size_t i) { return (i / inner) % c; });
            CHECK(test::max_rel_diff(y.span<float>(), expect) < 1e-5);
        }
}

TEST_CASE("batch_norm with channels last (NHWC) and AnyLayout") {
    auto t = make({2, 3, 4, 5}, 5);
    auto out = invoke("batch_norm", attrs(1e-5f, "NHWC"), t.slots(), {{"Y", 1}});
    auto expect = baseline(t, 1e-5f, [](std::size_t i) { return i % 5; });
    CHECK(test::max_rel_diff(out.get("Y").span<float>(), expect) < 1e-5);

    auto u = make({2, 3, 4, 5}, 3);
    out = invoke("batch_norm", attrs(1e-5f, "AnyLayout"), u.slots(), {{"Y", 1}});
    expect = baseline(u, 1e-5f, [](std::size_t i) { return (i / 20) % 3; });
    CHECK(test::max_rel_diff(out.get("Y").span<float>(), expect) < 1e-5);
}

TEST_CASE("batch_norm split over 2 and 3 threads gives the one-thread bits") {
    // Ranges of planes (NCHW) or of rows of C (NHWC), several per thread.
    for (const char* layout : {"NCHW", "NHWC"}) {
        CAPTURE(layout);
        const bool nhwc = std::string(layout) == "NHWC";
        const shape_t s = nhwc ? shape_t{2, 64, 64, 24} : shape_t{2, 24, 64, 64};
        auto t = make(s, 24);
        auto expect =
            baseline(t, 1e-5f, [&](std::size_t i) { return nhwc ? i % 24 : (i / (64 * 64)) % 24; });
        std::vector<tensor> outs;
        for (unsigned n : {1u, 2u, 3u}) {
            thread_pool pool(n);
            outs.push_back(
                invoke("batch_norm", attrs(1e-5f, layout), t.slots(), {{"Y", 1}}, &pool).get("Y"));
            CHECK(test::max_rel_diff(outs.back().span<float>(), expect) < 1e-5);
        }
        for (std::size_t i = 1; i < outs.size(); ++i)
            CHECK(std::memcmp(outs[0].data(), outs[i].data(),
                              static_cast<std::size_t>(outs[0].bytes())) == 0);
    }
}

TEST_CASE("batch_norm leaves the training outputs unset") {
    auto t = make({1, 3, 2, 2}, 3);
    auto out = invoke("batch_norm", attrs(1e-5f, "NCHW"), t.slots(),
                      {{"Y", 1}, {"MeanOut", 1}, {"VarianceOut", 1}, {"SavedMean", 1}});
    CHECK(out.get("Y").shape() == shape_t{1, 3, 2, 2});
    CHECK(out.get("MeanOut").shape().empty());
    CHECK(out.get("SavedMean").shape().empty());
}

TEST_CASE("batch_norm shape errors name the op") {
    auto t = make({1, 4, 2, 2}, 3);  // X has 4 channels, the statistics 3
    CHECK_THROWS_WITH_AS(invoke("batch_norm", attrs(1e-5f, "NCHW"), t.slots(), {{"Y", 1}}),
                         doctest::Contains("op batch_norm"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("batch_norm", attrs(1e-5f, "NCHW"), t.slots(), {{"Y", 1}}),
                         doctest::Contains("Scale shape [3]"), shape_error);
    auto r1 = make({4}, 4);
    CHECK_THROWS_AS(invoke("batch_norm", attrs(1e-5f, "NCHW"), r1.slots(), {{"Y", 1}}),
                    shape_error);
    CHECK_THROWS_AS(make_instance("batch_norm", attrs(1e-5f, "NCDHW")), unsupported_error);
}

}  // namespace ops_batch_norm_test
