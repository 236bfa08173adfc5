// box_coder against plain loops of Paddle's formulas: encode and decode,
// normalized and pixel boxes, variances from the attribute, the PriorBoxVar
// input or none, decode along axis 0 and 1; encode then decode gives the boxes
// back; bad shapes and attributes are named; an SSD head (prior_box ->
// reshape2 -> box_coder) runs in a program at two image sizes.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_box_coder_test {

namespace {
// Random boxes (x1 < x2, y1 < y2) in [0, scale].
tensor boxes(std::int64_t n, std::uint32_t seed, float scale) {
    auto t = test::random_tensor({n, 4}, seed, 0.f, scale);
    auto v = t.span<float>();
    for (std::int64_t i = 0; i < n; ++i) {
        if (v[i * 4] > v[i * 4 + 2]) std::swap(v[i * 4], v[i * 4 + 2]);
        if (v[i * 4 + 1] > v[i * 4 + 3]) std::swap(v[i * 4 + 1], v[i * 4 + 3]);
        v[i * 4 + 2] += 0.01f * scale;
        v[i * 4 + 3] += 0.01f * scale;
    }
    return t;
}
}  // namespace

TEST_CASE("box_coder encode matches the baseline and decode inverts it") {
    for (bool normalized : {true, false})
        for (int var_form : {0, 1, 2}) {
            CAPTURE(normalized);
            CAPTURE(var_form);
            const float scale = normalized ? 1.f : 200.f;
            const std::int64_t n = 5, m = 3;
            auto prior = boxes(m, 1, scale), target = boxes(n, 2, scale);
            auto pvar = test::random_tensor({m, 4}, 3, 0.1f, 0.3f);
            const std::vector<float> attr_var{0.1f, 0.1f, 0.2f, 0.2f};
            attr_map a;
            a.set("code_type", std::string("encode_center_size"));
            a.set("box_normalized", normalized);
            named_tensors in;
            in.add("PriorBox", prior).add("TargetBox", target);
            if (var_form == 1) a.set("variance", attr_var);
            if (var_form == 2) in.add("PriorBoxVar", pvar);
            auto enc = invoke("box_coder", a, in, {{"OutputBox", 1}}).get("OutputBox");
            REQUIRE(enc.shape() == shape_t{n, m, 4});
            const double one = normalized ? 0 : 1;
            auto P = prior.span<float>(), T = target.span<float>();
            std::vector<float> expect;
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < m; ++j) {
                    const double pw = P[j * 4 + 2] - P[j * 4] + one,
                                 ph = P[j * 4 + 3] - P[j * 4 + 1] + one;
                    const double tw = T[i * 4 + 2] - T[i * 4] + one,
                                 th = T[i * 4 + 3] - T[i * 4 + 1] + one;
                    double e[4] = {
                        ((T[i * 4] + T[i * 4 + 2]) / 2. - (P[j * 4] + pw / 2)) / pw,
                        ((T[i * 4 + 1] + T[i * 4 + 3]) / 2. - (P[j * 4 + 1] + ph / 2)) / ph,
                        std::log(tw / pw), std::log(th / ph)};
                    for (int k = 0; k < 4; ++k) {
                        double v = var_form == 1   ? attr_var[k]
                                   : var_form == 2 ? pvar.span<float>()[j * 4 + k]
                                                   : 1.0;
                        expect.push_back(float(e[k] / v));
                    }
                }
            CHECK(test::max_rel_diff(enc.span<float>(), expect) < 1e-4);
            // Decoding the codes against the same priors gives every target back
            // (pixel boxes shifted by -0.5: Paddle's encode takes the centre as
            // (x1 + x2) / 2 but the width as x2 - x1 + 1).
            attr_map d = a;
            d.set("code_type", std::string("decode_center_size"));
            named_tensors din;
            din.add("PriorBox", prior).add("TargetBox", enc);
            if (var_form == 2) din.add("PriorBoxVar", pvar);
            auto dec = invoke("box_coder", d, din, {{"OutputBox", 1}}).get("OutputBox");
            REQUIRE(dec.shape() == shape_t{n, m, 4});
            std::vector<float> back;
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < m; ++j)
                    for (int k = 0; k < 4; ++k)
                        back.push_back(T[i * 4 + k] - (normalized ? 0.f : 0.5f));
            CHECK(test::max_abs_diff(dec.span<float>(), back) < 2e-4 * scale);
        }
}

TEST_CASE("box_coder decode along axis 0 and 1 matches the baseline") {
    for (std::int64_t axis : {0, 1})
        for (bool normalized : {true, false})
            for (int var_form : {0, 1, 2}) {
                CAPTURE(axis);
                CAPTURE(normalized);
                CAPTURE(var_form);
                const std::int64_t n = 4, m = 3;
                const std::int64_t priors = axis == 0 ? m : n;
                auto prior = boxes(priors, 5, normalized ? 1.f : 50.f);
                auto pvar = test::random_tensor({priors, 4}, 6, 0.1f, 0.3f);
                auto codes = test::random_tensor({n, m, 4}, 7, -1.f, 1.f);
                const std::vector<float> attr_var{0.1f, 0.2f, 0.3f, 0.4f};
                attr_map a;
                a.set("code_type", std::string("decode_center_size"));
                a.set("box_normalized", normalized);
                a.set("axis", axis);
                named_tensors in;
                in.add("PriorBox", prior).add("TargetBox", codes);
                if (var_form == 1) a.set("variance", attr_var);
                if (var_form == 2) in.add("PriorBoxVar", pvar);
                auto out = invoke("box_coder", a, in, {{"OutputBox", 1}}).get("OutputBox");
                REQUIRE(out.shape() == shape_t{n, m, 4});
                const double one = normalized ? 0 : 1;
                auto P = prior.span<float>(), C = codes.span<float>();
                std::vector<float> expect;
                for (std::int64_t i = 0; i < n; ++i)
                    for (std::int64_t j = 0; j < m; ++j) {
                        const auto p = axis == 0 ? j : i;
                        double v[4] = {1, 1, 1, 1};
                        for (int k = 0; k < 4; ++k)
                            if (var_form == 1)
                                v[k] = attr_var[k];
                            else if (var_form == 2)
                                v[k] = pvar.span<float>()[p * 4 + k];
                        const double pw = P[p * 4 + 2] - P[p * 4] + one,
                                     ph = P[p * 4 + 3] - P[p * 4 + 1] + one;
                        const double pcx = P[p * 4] + pw / 2, pcy = P[p * 4 + 1] + ph / 2;
                        const float* t = &C[(i * m + j) * 4];
                        const double cx = v[0] * t[0] * pw + pcx, cy = v[1] * t[1] * ph + pcy;
                        const double w = std::exp(v[2] * t[2]) * pw, h = std::exp(v[3] * t[3]) * ph;
                        for (double e :
                             {cx - w / 2, cy - h / 2, cx + w / 2 - one, cy + h / 2 - one})
                            expect.push_back(float(e));
                    }
                CHECK(test::max_abs_diff(out.span<float>(), expect) < (normalized ? 1e-5 : 1e-3));
            }
}

TEST_CASE("box_coder names bad input") {
    auto prior = boxes(3, 1, 1.f);
    auto codes = test::random_tensor({2, 4, 4}, 2);
    attr_map a;
    a.set("code_type", std::string("decode_center_size"));
    CHECK_THROWS_WITH_AS(
        invoke("box_coder", a, named_tensors{}.add("PriorBox", prior).add("TargetBox", codes),
               {{"OutputBox", 1}}),
        doctest::Contains("PriorBox has 3 boxes, TargetBox dim 1 is 4 (axis 0)"), shape_error);
    a.set("variance", std::vector<float>{0.1f, 0.2f});
    CHECK_THROWS_WITH_AS(invoke("box_coder", a,
                                named_tensors{}
                                    .add("PriorBox", prior)
                                    .add("TargetBox", test::random_tensor({2, 3, 4}, 2)),
                                {{"OutputBox", 1}}),
                         doctest::Contains("variance must hold 4 values, holds 2"), shape_error);
    a.set("variance", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    CHECK_THROWS_WITH_AS(invoke("box_coder", a,
                                named_tensors{}
                                    .add("PriorBox", prior)
                                    .add("PriorBoxVar", prior)
                                    .add("TargetBox", test::random_tensor({2, 3, 4}, 2)),
                                {{"OutputBox", 1}}),
                         doctest::Contains("cannot both be given"), shape_error);
    attr_map e;
    CHECK_THROWS_WITH_AS(
        invoke("box_coder", e, named_tensors{}.add("PriorBox", prior).add("TargetBox", codes),
               {{"OutputBox", 1}}),
        doctest::Contains("TargetBox must be [N, 4] to encode"), shape_error);
    e.set("code_type", std::string("decode_center_offset"));
    CHECK_THROWS_WITH_AS(invoke("box_coder", e, named_tensors{}, {{"OutputBox", 1}}),
                         doctest::Contains("code_type 'decode_center_offset' is not supported"),
                         unsupported_error);
    e.set("code_type", std::string("decode_center_size"));
    e.set("axis", 2);
    CHECK_THROWS_WITH_AS(invoke("box_coder", e, named_tensors{}, {{"OutputBox", 1}}),
                         doctest::Contains("axis 2 is not supported"), unsupported_error);
}

TEST_CASE("an SSD head in a program: prior_box -> reshape2 -> box_coder, two image sizes") {
    // The feature map and image sizes are unknown until the feeds arrive.
    graph::graph g;
    graph::builder b(g);
    b.declare("feat", {1, 2, -1, -1});
    b.declare("img", {1, 3, -1, -1});
    b.declare("codes", {1, -1, 4});
    for (const char* v : {"boxes", "vars"}) b.declare(v, {-1, -1, -1, 4});
    for (const char* v : {"pb", "pv"}) b.declare(v, {-1, 4});
    for (const char* v : {"pbx", "pvx"}) b.declare(v, {0, -1, -1, -1, 4});
    b.declare("out", {1, -1, 4});
    b.feed("feat", 0);
    b.feed("img", 1);
    b.feed("codes", 2);
    attr_map pa;
    pa.set("min_sizes", std::vector<float>{16.f});
    pa.set("max_sizes", std::vector<float>{32.f});
    pa.set("aspect_ratios", std::vector<float>{2.f});
    pa.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    b.add_op("prior_box", {{"Input", {"feat"}}, {"Image", {"img"}}},
             {{"Boxes", {"boxes"}}, {"Variances", {"vars"}}}, pa);
    attr_map ra;
    ra.set("shape", std::vector<std::int32_t>{-1, 4});
    b.add_op("reshape2", {{"X", {"boxes"}}}, {{"Out", {"pb"}}, {"XShape", {"pbx"}}}, ra);
    b.add_op("reshape2", {{"X", {"vars"}}}, {{"Out", {"pv"}}, {"XShape", {"pvx"}}}, ra);
    attr_map ba;
    ba.set("code_type", std::string("decode_center_size"));
    b.add_op("box_coder", {{"PriorBox", {"pb"}}, {"PriorBoxVar", {"pv"}}, {"TargetBox", {"codes"}}},
             {{"OutputBox", {"out"}}}, ba);
    b.fetch("out", 0);
    b.finish();
    runtime::program p(std::move(g));
    for (const auto& dims :
         std::vector<std::array<std::int64_t, 4>>{{2, 3, 64, 96}, {5, 4, 150, 120}}) {
        const std::int64_t fh = dims[0], fw = dims[1], ih = dims[2], iw = dims[3];
        CAPTURE(fh);
        const auto feat = test::random_tensor({1, 2, fh, fw}, 1);
        const auto img = test::random_tensor({1, 3, ih, iw}, 2);
        const auto priors = fh * fw * 4;  // ratios 1, 2, 1/2 and the max square
        const auto codes = test::random_tensor({1, priors, 4}, 3);
        p.set_input("feat", feat);
        p.set_input("img", img);
        p.set_input("codes", codes);
        p.run();
        // The same by invoking the ops one by one.
        auto pr = invoke("prior_box", pa, named_tensors{}.add("Input", feat).add("Image", img),
                         {{"Boxes", 1}, {"Variances", 1}});
        auto flat = [&](const tensor& t) {
            auto v = t.span<float>();
            return tensor::from<float>({priors, 4}, std::vector<float>(v.begin(), v.end()));
        };
        const tensor pb = flat(pr.get("Boxes")), pv = flat(pr.get("Variances"));
        auto expect =
            invoke(
                "box_coder", ba,
                named_tensors{}.add("PriorBox", pb).add("PriorBoxVar", pv).add("TargetBox", codes),
                {{"OutputBox", 1}})
                .get("OutputBox");
        REQUIRE(p.output(0).shape == shape_t{1, priors, 4});
        CHECK(test::max_abs_diff(p.output(0).span<float>(), expect.span<float>()) == 0);
    }
}

}  // namespace ops_box_coder_test
