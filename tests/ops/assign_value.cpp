// assign_value: the values of the attribute its dtype names (or Paddle 2.5+'s
// `values`), in the attribute's shape, for every dtype it takes; a count that
// does not match the shape, a negative dim and a value the dtype cannot hold
// are named.
#include <limits>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_assign_value_test {

namespace {
tensor assign(const attr_map& a) {
    return invoke("assign_value", a, named_tensors{}, {{"Out", 1}}).get("Out");
}
template <class T>
std::vector<T> values_of(const tensor& t) {
    auto s = t.span<T>();
    return std::vector<T>(s.begin(), s.end());
}
}  // namespace

TEST_CASE("assign_value reads the slot its dtype names") {
    attr_map a;
    a.set("shape", std::vector<std::int32_t>{2, 2});
    a.set("dtype", 5);
    a.set("fp32_values", std::vector<float>{1.5f, -2, 0, 7});
    a.set("int32_values", std::vector<std::int32_t>{9, 9, 9, 9});  // not the dtype's slot
    auto f = assign(a);
    CHECK(f.type() == dtype::f32);
    CHECK(f.shape() == shape_t{2, 2});
    CHECK(values_of<float>(f) == std::vector<float>{1.5f, -2, 0, 7});

    a.set("dtype", 2);
    auto i = assign(a);
    CHECK(i.type() == dtype::i32);
    CHECK(values_of<std::int32_t>(i) == std::vector<std::int32_t>{9, 9, 9, 9});

    attr_map l;
    l.set("shape", std::vector<std::int32_t>{3});
    l.set("dtype", 3);
    const std::int64_t big = std::int64_t{1} << 60;  // not exact as a double
    l.set("int64_values", std::vector<std::int64_t>{big + 1, -1, 0});
    CHECK(values_of<std::int64_t>(assign(l)) == std::vector<std::int64_t>{big + 1, -1, 0});

    attr_map b;
    b.set("shape", std::vector<std::int32_t>{3});
    b.set("dtype", 0);
    b.set("bool_values", std::vector<std::int32_t>{1, 0, 5});
    auto bt = assign(b);
    CHECK(bt.type() == dtype::boolean);
    CHECK(values_of<bool>(bt) == std::vector<bool>{true, false, true});

    attr_map d;
    d.set("shape", std::vector<std::int32_t>{});
    d.set("dtype", 6);
    d.set("fp64_values", std::vector<double>{0.1});
    auto dt = assign(d);
    CHECK(dt.type() == dtype::f64);
    CHECK(dt.shape().empty());
    CHECK(values_of<double>(dt) == std::vector<double>{0.1});
}

TEST_CASE("assign_value prefers Paddle 2.5+'s values when present") {
    attr_map a;
    a.set("shape", std::vector<std::int32_t>{2});
    a.set("dtype", 5);
    a.set("fp32_values", std::vector<float>{});
    a.set("values", std::vector<double>{0.25, 4});
    CHECK(values_of<float>(assign(a)) == std::vector<float>{0.25f, 4});
    a.set("dtype", 3);
    a.set("values", std::vector<std::int64_t>{500, -3});  // all LONG scalars
    CHECK(values_of<std::int64_t>(assign(a)) == std::vector<std::int64_t>{500, -3});
    a.set("dtype", 21);  // int8
    a.set("values", std::vector<std::int64_t>{-128, 127});
    CHECK(values_of<std::int8_t>(assign(a)) == std::vector<std::int8_t>{-128, 127});
}

TEST_CASE("assign_value names bad attributes") {
    attr_map a;
    a.set("shape", std::vector<std::int32_t>{2, 2});
    a.set("dtype", 5);
    a.set("fp32_values", std::vector<float>{1, 2, 3});
    CHECK_THROWS_WITH_AS(assign(a),
                         doctest::Contains("the shape [2,2] holds 4 values, the attribute 3"),
                         shape_error);
    a.set("shape", std::vector<std::int32_t>{-1});
    CHECK_THROWS_WITH_AS(assign(a), doctest::Contains("has a negative dim"), shape_error);
    attr_map i;
    i.set("shape", std::vector<std::int32_t>{1});
    i.set("dtype", 2);
    i.set("int64_values", std::vector<std::int64_t>{1});
    i.set("values", std::vector<std::int64_t>{std::int64_t{1} << 40});
    CHECK_THROWS_WITH_AS(assign(i), doctest::Contains("does not fit the output dtype int32"),
                         shape_error);
    attr_map f;
    f.set("shape", std::vector<std::int32_t>{1});
    f.set("dtype", 3);
    f.set("values", std::vector<double>{std::numeric_limits<double>::quiet_NaN()});
    CHECK_THROWS_AS(assign(f), unsupported_error);  // a NaN is no int64 attribute
}

}  // namespace ops_assign_value_test
