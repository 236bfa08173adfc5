#include "litegraph/core/npy.hpp"

#include <filesystem>
#include <fstream>

#include "support.hpp"

using namespace litegraph;

TEST_CASE("npy round trip keeps dtype, shape and values") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    auto f = test::random_tensor({2, 3, 5}, 3);
    save_npy(dir / "f.npy", f.ref());
    auto g = load_npy(dir / "f.npy");
    CHECK(g.type() == dtype::f32);
    CHECK(g.shape() == shape_t{2, 3, 5});
    CHECK(test::max_abs_diff(g.span<float>(), f.span<float>()) == 0);

    std::vector<std::int64_t> ids{4, -1, 9};
    auto t = tensor::from<std::int64_t>({3, 1}, ids);
    save_npy(dir / "i.npy", t.ref());
    auto u = load_npy(dir / "i.npy");
    CHECK(u.type() == dtype::i64);
    CHECK(u.shape() == shape_t{3, 1});
    CHECK(u.span<std::int64_t>()[1] == -1);
}

TEST_CASE("a broken .npy is an io_error naming the file") {
    auto dir = std::filesystem::path(LITEGRAPH_BINARY_DIR) / "test-scratch" / "npy";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "bad.npy") << "not an npy file at all";
    CHECK_THROWS_WITH_AS(load_npy(dir / "bad.npy"), doctest::Contains("bad.npy"), io_error);
    CHECK_THROWS_WITH_AS(load_npy(dir / "missing.npy"), doctest::Contains("missing.npy"), io_error);
}
