// squeeze2 / unsqueeze2: shapes per Paddle (non-1 dims listed in axes are
// kept; unsqueeze axes apply one after the other), data unchanged, XShape.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_squeeze2_test {

namespace {
shape_t run_shape(const char* type, const shape_t& in, std::vector<std::int32_t> axes) {
    attr_map a;
    a.set("axes", std::move(axes));
    auto x = test::random_tensor(in, 6);
    auto r = invoke(type, a, named_tensors{}.add("X", x), {{"Out", 1}, {"XShape", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), x.span<float>()) == 0);
    shape_t xs{0};
    xs.insert(xs.end(), in.begin(), in.end());
    CHECK(r.get("XShape").shape() == xs);
    return r.get("Out").shape();
}
}  // namespace

TEST_CASE("squeeze2 removes size-1 dims") {
    CHECK(run_shape("squeeze2", {1, 3, 1, 5}, {}) == shape_t{3, 5});
    CHECK(run_shape("squeeze2", {1, 3, 1, 5}, {0}) == shape_t{3, 1, 5});
    CHECK(run_shape("squeeze2", {1, 3, 1, 5}, {-2}) == shape_t{1, 3, 5});
    CHECK(run_shape("squeeze2", {1, 3, 1, 5}, {1}) == shape_t{1, 3, 1, 5});  // 3 kept
    CHECK(run_shape("squeeze2", {1, 3, 1, 5}, {0, 2, 2}) == shape_t{3, 5});
    CHECK(run_shape("squeeze2", {1, 1}, {}) == shape_t{1});  // never 0-D
    CHECK(run_shape("squeeze", {4, 1}, {1}) == shape_t{4});
    CHECK_THROWS_WITH_AS(run_shape("squeeze2", {1, 3}, {2}), doctest::Contains("axis 2"),
                         shape_error);
}

TEST_CASE("unsqueeze2 inserts size-1 dims one axis after the other") {
    CHECK(run_shape("unsqueeze2", {3, 5}, {0}) == shape_t{1, 3, 5});
    CHECK(run_shape("unsqueeze2", {3, 5}, {2}) == shape_t{3, 5, 1});
    CHECK(run_shape("unsqueeze2", {3, 5}, {-1}) == shape_t{3, 5, 1});
    CHECK(run_shape("unsqueeze2", {3, 5}, {0, 2}) == shape_t{1, 3, 1, 5});
    CHECK(run_shape("unsqueeze2", {3, 5}, {2, 0}) == shape_t{1, 3, 5, 1});
    CHECK(run_shape("unsqueeze2", {3, 5}, {1, 1}) == shape_t{3, 1, 1, 5});
    CHECK(run_shape("unsqueeze2", {3, 5}, {0, -1}) == shape_t{1, 3, 5, 1});
    CHECK(run_shape("unsqueeze", {4}, {-2}) == shape_t{1, 4});
    CHECK_THROWS_WITH_AS(run_shape("unsqueeze2", {3, 5}, {4}), doctest::Contains("axis 4"),
                         shape_error);
    // AxesTensor overrides the attribute.
    auto x = test::random_tensor({3, 5}, 1);
    auto axes = tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{1});
    attr_map a;
    a.set("axes", std::vector<std::int32_t>{0});
    auto r =
        invoke("unsqueeze2", a, named_tensors{}.add("X", x).add("AxesTensor", axes), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{3, 1, 5});
}

}  // namespace ops_squeeze2_test
