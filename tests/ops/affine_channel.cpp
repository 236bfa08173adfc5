// affine_channel against a plain loop: NCHW, NHWC and 2-D X; wrong Scale/Bias
// sizes and layouts are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_affine_channel_test {

TEST_CASE("affine_channel matches the baseline") {
    std::uint32_t seed = 1;
    for (const char* layout : {"NCHW", "NHWC", "AnyLayout"})
        for (const shape_t& s :
             {shape_t{2, 3, 4, 5}, shape_t{3, 4}, shape_t{1, 2, 1, 1}, shape_t{0, 3, 2, 2}}) {
            CAPTURE(layout);
            CAPTURE(to_string(s));
            const bool nhwc = std::string(layout) == "NHWC";
            const auto c = nhwc ? s.back() : s[1];
            auto x = test::random_tensor(s, seed++);
            auto scale = test::random_tensor({c}, seed++);
            auto bias = test::random_tensor({c}, seed++);
            attr_map a;
            a.set("data_layout", std::string(layout));
            auto y = invoke("affine_channel", a,
                            named_tensors{}.add("X", x).add("Scale", scale).add("Bias", bias),
                            {{"Out", 1}})
                         .get("Out");
            REQUIRE(y.shape() == s);
            std::vector<float> expect;
            for (std::int64_t i = 0; i < x.numel(); ++i) {
                std::int64_t ch;
                if (nhwc) {
                    ch = i % c;
                } else {
                    std::int64_t inner = 1;
                    for (std::size_t d = 2; d < s.size(); ++d) inner *= s[d];
                    ch = (i / inner) % c;
                }
                expect.push_back(x.span<float>()[i] * scale.span<float>()[ch] +
                                 bias.span<float>()[ch]);
            }
            CHECK(test::max_abs_diff(y.span<float>(), expect) == 0);
        }
}

TEST_CASE("affine_channel names bad input") {
    auto x = test::random_tensor({1, 3, 2, 2}, 1);
    CHECK_THROWS_WITH_AS(invoke("affine_channel", {},
                                named_tensors{}
                                    .add("X", x)
                                    .add("Scale", test::random_tensor({2}, 2))
                                    .add("Bias", test::random_tensor({3}, 3)),
                                {{"Out", 1}}),
                         doctest::Contains("Scale has shape [2], X has 3 channels"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("affine_channel", {},
               named_tensors{}.add("X", x).add("Scale", test::random_tensor({3}, 2)), {{"Out", 1}}),
        doctest::Contains("missing input 'Bias'"), shape_error);
    attr_map a;
    a.set("data_layout", std::string("NCDHW"));
    CHECK_THROWS_WITH_AS(invoke("affine_channel", a, named_tensors{}, {{"Out", 1}}),
                         doctest::Contains("data_layout 'NCDHW' is not supported"),
                         unsupported_error);
}

}  // namespace ops_affine_channel_test
