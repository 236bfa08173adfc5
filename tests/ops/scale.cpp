// scale against a plain-loop baseline: bias after or before the scale; its
// firmware form against the runtime op.
#include "litegraph/ops/scale.hpp"

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

TEST_CASE("scale names what it cannot do") {
    tensor ids(dtype::i64, {3});
    CHECK_THROWS_AS(invoke("scale", {}, named_tensors{}.add("X", ids), {{"Out", 1}}), shape_error);
    auto x = test::random_tensor({2}, 1);
    CHECK_THROWS_WITH_AS(
        invoke("scale", {}, named_tensors{}.add("X", x).add("ScaleTensor", x), {{"Out", 1}}),
        doctest::Contains("ScaleTensor"), shape_error);
}

}  // namespace ops_scale_test
