// stb_image's and stb_image_write's implementations (PNG and JPEG decoding,
// PNG writing) for a test executable that reads or writes pictures, and
// `load_picture`: include it in one source of that
// executable.  stb's warnings are third-party code's, not ours.
#pragma once

#include <filesystem>
#include <memory>

#include "litegraph/vision/image.hpp"
#include "support.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace litegraph::test {

/// A PNG or JPEG file as an RGB vision image (alpha composited onto white).
inline vision::image load_picture(const std::filesystem::path& p) {
    int w = 0, h = 0, c = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> px(stbi_load(p.string().c_str(), &w, &h, &c, 4),
                                                       stbi_image_free);
    REQUIRE_MESSAGE(px != nullptr, "cannot read " << p.string());
    return vision::image::from_pixels(px.get(), w, h, 4);
}

}  // namespace litegraph::test
