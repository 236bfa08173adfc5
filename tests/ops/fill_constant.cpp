// fill_constant: shape from attribute / ShapeTensor / ShapeTensorList,
// every dtype code, value / str_value / ValueTensor; the real Paddle-Lite
// unit-test model (int32 ShapeTensor feed).
#include <cmath>

#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_fill_constant_test {

namespace {
attr_map fc(std::vector<std::int64_t> shape, int dtype, float value, std::string str = "") {
    attr_map a;
    a.set("shape", std::move(shape));
    a.set("dtype", dtype);
    a.set("value", value);
    a.set("str_value", std::move(str));
    return a;
}
template <class T>
std::vector<T> values(const tensor& t) {
    auto s = t.span<T>();
    return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("fill_constant converts the value to every dtype code") {
    auto run = [](int code, float v, std::string s = "") {
        return invoke("fill_constant", fc({2, 3}, code, v, std::move(s)), {}, {{"Out", 1}})
            .get("Out");
    };
    CHECK(values<float>(run(5, 1.5f)) == std::vector<float>(6, 1.5f));
    CHECK(values<double>(run(6, 0.25f)) == std::vector<double>(6, 0.25));
    CHECK(values<std::int32_t>(run(2, -2.7f)) == std::vector<std::int32_t>(6, -2));  // truncates
    CHECK(values<std::int64_t>(run(3, 1.894f)) == std::vector<std::int64_t>(6, 1));
    CHECK(values<std::int16_t>(run(1, 300.f)) == std::vector<std::int16_t>(6, 300));
    CHECK(values<std::uint8_t>(run(20, 255.f)) == std::vector<std::uint8_t>(6, 255));
    CHECK(values<std::int8_t>(run(21, -128.f)) == std::vector<std::int8_t>(6, -128));
    CHECK(values<bool>(run(0, 0.5f)) == std::vector<bool>(6, true));
    auto h = run(4, 1.5f);
    CHECK(h.type() == dtype::f16);
    CHECK(reinterpret_cast<const std::uint16_t*>(h.data())[5] == 0x3e00);  // 1.5 in half
    CHECK(reinterpret_cast<const std::uint16_t*>(run(4, -65504.f).data())[0] == 0xfbff);
    CHECK(reinterpret_cast<const std::uint16_t*>(run(4, 1e6f).data())[0] == 0x7c00);
    CHECK_THROWS_WITH_AS(run(3, 1e30f), doctest::Contains("does not fit"), shape_error);
    CHECK_THROWS_WITH_AS(run(7, 0.f), doctest::Contains("'dtype' = 7"), unsupported_error);
}

TEST_CASE("fill_constant: str_value takes precedence, ValueTensor over both") {
    CHECK(values<std::int32_t>(
              invoke("fill_constant", fc({2}, 2, -1.f, "-1"), {}, {{"Out", 1}}).get("Out")) ==
          std::vector<std::int32_t>{-1, -1});
    CHECK(values<std::int64_t>(
              invoke("fill_constant", fc({1}, 3, 0.f, "123456789012"), {}, {{"Out", 1}})
                  .get("Out")) == std::vector<std::int64_t>{123456789012});
    auto inf = invoke("fill_constant", fc({1}, 5, 0.f, "-inf"), {}, {{"Out", 1}}).get("Out");
    CHECK(std::isinf(inf.span<float>()[0]));
    CHECK(inf.span<float>()[0] < 0);
    auto nan = invoke("fill_constant", fc({1}, 6, 0.f, "nan"), {}, {{"Out", 1}}).get("Out");
    CHECK(std::isnan(nan.span<double>()[0]));
    CHECK_THROWS_WITH_AS(invoke("fill_constant", fc({1}, 5, 0.f, "abc"), {}, {{"Out", 1}}),
                         doctest::Contains("str_value 'abc'"), shape_error);
    auto vt = tensor::from<double>({1}, std::vector{7.75});
    auto r = invoke("fill_constant", fc({3}, 5, 1.f, "2"), named_tensors{}.add("ValueTensor", vt),
                    {{"Out", 1}});
    CHECK(values<float>(r.get("Out")) == std::vector<float>(3, 7.75f));
}

TEST_CASE("fill_constant: ShapeTensor beats ShapeTensorList beats the attribute") {
    named_tensors in;
    in.add("ShapeTensorList", tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{2}))
        .add("ShapeTensorList", tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{4}));
    auto r = invoke("fill_constant", fc({9}, 5, 3.f), in, {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{2, 4});
    in.add("ShapeTensor", tensor::from<std::int32_t>({3}, std::vector<std::int32_t>{1, 2, 3}));
    auto r2 = invoke("fill_constant", fc({9}, 5, 3.f), in, {{"Out", 1}});
    CHECK(r2.get("Out").shape() == shape_t{1, 2, 3});
    CHECK(values<float>(r2.get("Out")) == std::vector<float>(6, 3.f));
    CHECK_THROWS_WITH_AS(invoke("fill_constant", fc({2, -1}, 5, 0.f), {}, {{"Out", 1}}),
                         doctest::Contains("negative dim"), shape_error);
}

TEST_CASE("paddlelite_ut_fill_constant: the fed ShapeTensor decides the int64 output") {
    auto dir = test::shared_model("paddlelite_ut_fill_constant");
    if (dir.empty()) return;
    auto m = paddle::load(dir);
    runtime::program p(std::move(m.graph));
    // The program declares Out as [10, 3] (its `shape` attribute), but as in
    // Paddle the ShapeTensor input takes precedence over the attribute.
    for (auto dims :
         {std::vector<std::int32_t>{2, 3, 1, 4}, std::vector<std::int32_t>{1, 1, 5, 2}}) {
        p.set_input("shape_data", tensor::from<std::int32_t>({4}, dims));
        p.run();
        const auto& out = p.output(0);
        CHECK(out.type == dtype::i64);
        CHECK(out.shape == shape_t(dims.begin(), dims.end()));
        for (auto v : out.span<std::int64_t>()) CHECK(v == 1);  // value 1.894 truncated
    }
}

}  // namespace ops_fill_constant_test
