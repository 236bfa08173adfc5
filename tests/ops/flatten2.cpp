// flatten2 / flatten / flatten_contiguous_range: shapes for several axes,
// data unchanged, XShape {0, dims of X}.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_flatten2_test {

TEST_CASE("flatten2 merges dims before and after axis") {
    struct cse {
        shape_t in;
        int axis;
        shape_t expect;
    };
    const cse cases[] = {
        {{2, 3, 4, 5}, 0, {1, 120}}, {{2, 3, 4, 5}, 1, {2, 60}}, {{2, 3, 4, 5}, 2, {6, 20}},
        {{2, 3, 4, 5}, 4, {120, 1}}, {{7}, 1, {7, 1}},           {{3, 1, 1}, 1, {3, 1}}};
    for (const auto& c : cases) {
        CAPTURE(c.axis);
        attr_map a;
        a.set("axis", c.axis);
        auto x = test::random_tensor(c.in, 2);
        auto r = invoke("flatten2", a, named_tensors{}.add("X", x), {{"Out", 1}, {"XShape", 1}});
        CHECK(r.get("Out").shape() == c.expect);
        CHECK(test::max_abs_diff(r.get("Out").span<float>(), x.span<float>()) == 0);
        shape_t xs{0};
        xs.insert(xs.end(), c.in.begin(), c.in.end());
        CHECK(r.get("XShape").shape() == xs);
        auto r1 = invoke("flatten", a, named_tensors{}.add("X", x), {{"Out", 1}});
        CHECK(r1.get("Out").shape() == c.expect);
    }
    attr_map bad;
    bad.set("axis", 5);
    CHECK_THROWS_WITH_AS(
        invoke("flatten2", bad, named_tensors{}.add("X", test::random_tensor({2, 3}, 1)),
               {{"Out", 1}}),
        doctest::Contains("axis 5"), shape_error);
}

TEST_CASE("flatten_contiguous_range merges start_axis..stop_axis") {
    struct cse {
        int start, stop;
        shape_t expect;
    };
    const shape_t in{2, 3, 4, 5};
    const cse cases[] = {{1, -1, {2, 60}},    {0, -1, {120}},       {0, 1, {6, 4, 5}},
                         {1, 2, {2, 12, 5}},  {-2, -1, {2, 3, 20}}, {2, 2, {2, 3, 4, 5}},
                         {3, 3, {2, 3, 4, 5}}};
    auto x = test::random_tensor(in, 4);
    for (const auto& c : cases) {
        CAPTURE(c.start);
        CAPTURE(c.stop);
        attr_map a;
        a.set("start_axis", c.start);
        a.set("stop_axis", c.stop);
        auto r = invoke("flatten_contiguous_range", a, named_tensors{}.add("X", x),
                        {{"Out", 1}, {"XShape", 1}});
        CHECK(r.get("Out").shape() == c.expect);
        CHECK(r.get("XShape").shape() == shape_t{0, 2, 3, 4, 5});
        CHECK(test::max_abs_diff(r.get("Out").span<float>(), x.span<float>()) == 0);
    }
    attr_map bad;
    bad.set("start_axis", 3);
    bad.set("stop_axis", 1);
    CHECK_THROWS_WITH_AS(
        invoke("flatten_contiguous_range", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("must not come after stop_axis"), shape_error);
    bad.set("start_axis", 4);
    CHECK_THROWS_WITH_AS(
        invoke("flatten_contiguous_range", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("start_axis 4 is out of range"), shape_error);
}

}  // namespace ops_flatten2_test
