// clip against a plain loop: odd shapes, bounds as attributes and as Min / Max
// inputs (which win), equal bounds; min > max and bad bound inputs are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_clip_test {

namespace {
std::vector<float> baseline(const tensor& x, float lo, float hi) {
    std::vector<float> out;
    for (float v : x.span<float>()) out.push_back(std::min(std::max(v, lo), hi));
    return out;
}
tensor scalar(float v) {
    return tensor::from<float>({1}, std::vector<float>{v});
}
}  // namespace

TEST_CASE("clip matches the baseline with attribute bounds") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{7}, shape_t{2, 3, 5}, shape_t{1, 300, 4}, shape_t{0, 2}})
        for (auto bounds : {std::pair{-1.f, 1.f}, std::pair{0.f, 6.f}, std::pair{-0.25f, -0.25f},
                            std::pair{1e-5f, 1.f - 1e-5f}}) {
            const float lo = bounds.first, hi = bounds.second;
            CAPTURE(to_string(s));
            CAPTURE(lo);
            CAPTURE(hi);
            auto x = test::random_tensor(s, seed++, -3.f, 3.f);
            attr_map a;
            a.set("min", lo);
            a.set("max", hi);
            auto r = invoke("clip", a, named_tensors{}.add("X", x), {{"Out", 1}});
            REQUIRE(r.get("Out").shape() == s);
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, lo, hi)) == 0);
        }
}

TEST_CASE("clip takes Min / Max inputs over the attributes") {
    auto x = test::random_tensor({3, 5}, 9, -3.f, 3.f);
    attr_map a;
    a.set("min", -10.f);
    a.set("max", 10.f);
    auto r = invoke("clip", a, named_tensors{}.add("X", x).add("Min", scalar(-0.5f)), {{"Out", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, -0.5f, 10.f)) == 0);
    r = invoke("clip", a, named_tensors{}.add("X", x).add("Max", scalar(0.75f)), {{"Out", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, -10.f, 0.75f)) == 0);
    r = invoke("clip", a,
               named_tensors{}.add("X", x).add("Min", scalar(0.f)).add("Max", scalar(1.f)),
               {{"Out", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, 0.f, 1.f)) == 0);
}

TEST_CASE("clip names bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    attr_map a;
    a.set("min", 2.f);
    a.set("max", 1.f);
    CHECK_THROWS_WITH_AS(invoke("clip", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("min 2.000000 is greater than max 1.000000"),
                         shape_error);
    a.set("min", 0.f);
    CHECK_THROWS_WITH_AS(
        invoke("clip", a, named_tensors{}.add("X", x).add("Min", scalar(3.f)), {{"Out", 1}}),
        doctest::Contains("min 3.000000 is greater than max 1.000000"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("clip", a, named_tensors{}.add("X", x).add("Max", test::random_tensor({2}, 3)),
               {{"Out", 1}}),
        doctest::Contains("Max must be one float32 value, got float32 of shape [2]"), shape_error);
    auto xi = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("clip", a, named_tensors{}.add("X", xi), {{"Out", 1}}),
                         doctest::Contains("X must be float32, got int32"), shape_error);
}

}  // namespace ops_clip_test
