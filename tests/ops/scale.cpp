// scale against a plain-loop baseline: bias after or before the scale, float32,
// float64 and integers; its firmware form against the runtime op.
#include "litegraph/ops/scale.hpp"

#include <limits>

#include "firmware_form.hpp"
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_scale_test {

TEST_CASE("scale matches out = s*x + b, or s*(x + b), over shapes and attributes") {
    for (auto shape : {shape_t{7}, shape_t{2, 3, 5}, shape_t{1, 4, 3, 3}})
        for (float s : {1.f, -0.5f, 3.f})
            for (float b : {0.f, 0.25f})
                for (bool after : {true, false}) {
                    auto x = test::random_tensor(shape, 11);
                    attr_map a;
                    a.set("scale", s);
                    a.set("bias", b);
                    a.set("bias_after_scale", after);
                    auto out = invoke("scale", a, named_tensors{}.add("X", x), {{"Out", 1}});
                    const auto& y = out.get("Out");
                    CHECK(y.shape() == shape);
                    std::vector<float> expect;
                    for (float v : x.span<float>())
                        expect.push_back(after ? s * v + b : s * (v + b));
                    CHECK(test::max_rel_diff(y.span<float>(), expect) < 1e-6);
                }
}

TEST_CASE("scale's firmware form equals the runtime op and the baseline") {
    for (auto shape : {shape_t{1}, shape_t{3, 17}, shape_t{2, 4, 3, 5}})
        for (float s : {1.f, -0.5f, 3.f})
            for (float b : {0.f, 0.25f})
                for (bool after : {true, false}) {
                    auto x = test::random_tensor(shape, 12);
                    attr_map a;
                    a.set("scale", s);
                    a.set("bias", b);
                    a.set("bias_after_scale", after);
                    const auto in = named_tensors{}.add("X", x);
                    const auto r = invoke("scale", a, in, {{"Out", 1}});
                    const auto f =
                        test::run_firmware_form<ops::scale>("scale", a, in, {{"Out", 1}});
                    CHECK(test::same_tensor_bytes(f, r.get("Out")));
                    std::vector<float> expect;
                    for (float v : x.span<float>())
                        expect.push_back(after ? s * v + b : s * (v + b));
                    CHECK(test::max_rel_diff(f.span<float>(), expect) < 1e-6);
                }
}

namespace {
// Paddle's kernel for a non-float32 X: scale and bias converted to X's dtype
// (truncated toward zero for integers), the arithmetic in that dtype (exact
// here: small values).
template <class T>
void check_typed(std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-20, 20);
    for (auto shape : {shape_t{}, shape_t{7}, shape_t{2, 3, 5}})
        for (float s : {1.f, -2.f, 8.f, 2.75f})
            for (float b : {0.f, 3.f, -1.5f})
                for (bool after : {true, false}) {
                    CAPTURE(s);
                    CAPTURE(b);
                    CAPTURE(after);
                    tensor x(dtype_v<T>, shape);
                    for (auto& v : x.span<T>()) v = static_cast<T>(d(rng));
                    attr_map a;
                    a.set("scale", s);
                    a.set("bias", b);
                    a.set("bias_after_scale", after);
                    auto y =
                        invoke("scale", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
                    REQUIRE(y.type() == dtype_v<T>);
                    REQUIRE(y.shape() == shape);
                    const T ts = static_cast<T>(s), tb = static_cast<T>(b);
                    std::size_t k = 0;
                    for (T v : x.span<T>()) {
                        const T want = static_cast<T>(after ? ts * v + tb : ts * (v + tb));
                        CHECK(y.span<T>()[k++] == want);
                    }
                }
}
}  // namespace

TEST_CASE("scale of float64 and integers: in X's dtype, as Paddle's kernel") {
    check_typed<double>(1);
    check_typed<std::int64_t>(2);
    check_typed<std::int32_t>(3);
    check_typed<std::int16_t>(4);
    // int64 wraps instead of overflowing
    auto big = tensor::from<std::int64_t>(
        {1}, std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()});
    attr_map a;
    a.set("scale", 2.f);
    auto y = invoke("scale", a, named_tensors{}.add("X", big), {{"Out", 1}}).get("Out");
    CHECK(y.span<std::int64_t>()[0] == -2);
    // no firmware form but float32
    tensor ids(dtype::i64, {3});
    CHECK_THROWS_WITH_AS(test::run_firmware_form<ops::scale>(
                             "scale", a, named_tensors{}.add("X", ids), {{"Out", 1}}),
                         doctest::Contains("scale of int64 (float32 only)"), unsupported_error);
}

TEST_CASE("scale names what it cannot do") {
    tensor flags(dtype::boolean, {3});
    CHECK_THROWS_WITH_AS(invoke("scale", {}, named_tensors{}.add("X", flags), {{"Out", 1}}),
                         doctest::Contains("X of dtype bool is not supported"), shape_error);
    auto x = test::random_tensor({2}, 1);
    CHECK_THROWS_WITH_AS(
        invoke("scale", {}, named_tensors{}.add("X", x).add("ScaleTensor", x), {{"Out", 1}}),
        doctest::Contains("ScaleTensor"), shape_error);
}

}  // namespace ops_scale_test
