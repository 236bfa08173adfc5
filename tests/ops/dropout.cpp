// dropout at inference: identity for upscale_in_train, x * (1 - p) for
// downgrade_in_infer (the default); only Out is produced.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_dropout_test {

TEST_CASE("dropout at inference") {
    for (float p : {0.f, 0.1f, 0.5f, 0.9f})
        for (const shape_t& s : {shape_t{5}, shape_t{2, 3, 4}}) {
            CAPTURE(p);
            auto x = test::random_tensor(s, 51);
            attr_map a;
            a.set("dropout_prob", p);
            a.set("is_test", true);
            auto down = invoke("dropout", a, named_tensors{}.add("X", x), {{"Out", 1}});
            std::vector<float> want;
            for (auto v : x.span<float>()) want.push_back(v * (1.f - p));
            CHECK(down.get("Out").shape() == s);
            CHECK(test::max_abs_diff(down.get("Out").span<float>(), want) == 0);
            a.set("dropout_implementation", std::string("upscale_in_train"));
            auto up = invoke("dropout", a, named_tensors{}.add("X", x), {{"Out", 1}});
            CHECK(test::max_abs_diff(up.get("Out").span<float>(), x.span<float>()) == 0);
        }
    attr_map bad;
    bad.set("dropout_implementation", std::string("whatever"));
    CHECK_THROWS_WITH_AS(make_instance("dropout", bad), doctest::Contains("whatever"),
                         unsupported_error);
    auto xi = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("dropout", {}, named_tensors{}.add("X", xi), {{"Out", 1}}),
                         doctest::Contains("needs float32 or float64"), shape_error);
}

}  // namespace ops_dropout_test
