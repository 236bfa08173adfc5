#include "litegraph/ops/cast.hpp"

#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_cast_test {

namespace {
tensor run(const tensor& x, int out_dtype, int in_dtype = 5) {
    attr_map a;
    a.set("in_dtype", in_dtype);
    a.set("out_dtype", out_dtype);
    return invoke("cast", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
}

// In-range values: a plain static_cast is the baseline.
template <class To, class From>
void check_cast(const tensor& x, int code) {
    auto out = run(x, code);
    REQUIRE(out.type() == dtype_v<To>);
    REQUIRE(out.shape() == x.shape());
    auto xs = x.span<From>();
    auto os = out.span<To>();
    for (std::size_t i = 0; i < xs.size(); ++i) {
        CAPTURE(i);
        CHECK(os[i] == static_cast<To>(xs[i]));
    }
}
}  // namespace

TEST_CASE("cast float32 to every supported type matches static_cast") {
    for (const shape_t& s : {shape_t{9}, shape_t{2, 3, 4}}) {
        auto x = test::random_tensor(s, 5, -100.f, 100.f);
        check_cast<std::int32_t, float>(x, 2);
        check_cast<std::int64_t, float>(x, 3);
        check_cast<std::int16_t, float>(x, 1);
        check_cast<double, float>(x, 6);
        check_cast<std::int8_t, float>(x, 21);
        check_cast<float, float>(x, 5);
        auto pos = test::random_tensor(s, 6, 0.f, 250.f);
        check_cast<std::uint8_t, float>(pos, 20);
        check_cast<bool, float>(x, 0);
    }
}

TEST_CASE("float to int truncates toward zero; ints and bools convert back") {
    auto x = tensor::from<float>({6}, std::vector<float>{-2.7f, -0.5f, 0.f, 0.5f, 2.7f, 3.f});
    auto i = run(x, 2);
    CHECK(std::vector<std::int32_t>(i.span<std::int32_t>().begin(), i.span<std::int32_t>().end()) ==
          std::vector<std::int32_t>{-2, 0, 0, 0, 2, 3});
    auto back = run(i, 5, 2);
    CHECK(std::vector<float>(back.span<float>().begin(), back.span<float>().end()) ==
          std::vector<float>{-2.f, 0.f, 0.f, 0.f, 2.f, 3.f});
    auto b = run(i, 0, 2);
    CHECK(std::vector<bool>(b.span<bool>().begin(), b.span<bool>().end()) ==
          std::vector<bool>{true, false, false, false, true, true});
    auto l = run(b, 3, 0);
    CHECK(std::vector<std::int64_t>(l.span<std::int64_t>().begin(), l.span<std::int64_t>().end()) ==
          std::vector<std::int64_t>{1, 0, 0, 0, 1, 1});
}

TEST_CASE("out-of-range floats and NaN give a defined value, as on x86") {
    auto x = tensor::from<float>({3}, std::vector<float>{NAN, 3e9f, -3e9f});
    auto i = run(x, 2);
    for (auto v : i.span<std::int32_t>()) CHECK(v == INT32_MIN);
    auto l = run(x, 3);
    CHECK(l.span<std::int64_t>()[1] == 3000000000LL);
    CHECK(l.span<std::int64_t>()[0] == INT64_MIN);
}

TEST_CASE("unsupported target types are named") {
    auto x = test::random_tensor({2}, 1);
    CHECK_THROWS_WITH_AS(run(x, 4), doctest::Contains("float16"), unsupported_error);
    CHECK_THROWS_WITH_AS(run(x, 22), doctest::Contains("22"), unsupported_error);
}

}  // namespace ops_cast_test
