// shape: int32 dims of Input, for several ranks and dtypes; folded from shapes.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

TEST_CASE("shape gives Input's dims as int32") {
    const shape_t shapes[] = {{5}, {2, 3}, {1, 3, 28, 28}, {2, 0, 4}};
    for (const auto& s : shapes) {
        auto r =
            invoke("shape", {}, named_tensors{}.add("Input", tensor(dtype::i64, s)), {{"Out", 1}});
        const auto& out = r.get("Out");
        CHECK(out.type() == dtype::i32);
        CHECK(out.shape() == shape_t{static_cast<std::int64_t>(s.size())});
        auto v = out.span<std::int32_t>();
        CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == s);
    }
    CHECK(make_kernel("shape", {})->folds_from_shapes());
}

TEST_CASE("shape needs no input data") {
    auto k = make_kernel("shape", {});
    tensor_ref in{"x", dtype::f32, {4, 7}, nullptr}, out;
    op_io io;
    io.type = "shape";
    io.label = "s";
    io.inputs = {{"Input", {&in}}};
    io.outputs = {{"Out", {&out}}};
    k->infer(io);
    tensor t(out.type, out.shape);
    out.data = t.data();
    k->run(io);
    CHECK(t.span<std::int32_t>()[0] == 4);
    CHECK(t.span<std::int32_t>()[1] == 7);
}
