// The implementations of the stb headers the CLI uses (image decoding,
// PNG writing, the small bitmap font of --draw's labels, the TrueType
// rasteriser of `ocr --draw`), compiled once, with
// their own warnings off: they are third-party code.
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_easy_font.h>
#include <stb/stb_image_write.h>
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb/stb_truetype.h>
int stb_easy_font_print_extern(float x, float y, char* text, unsigned char color[4],
                               void* vertex_buffer, int vbuf_size) {
    return stb_easy_font_print(x, y, text, color, vertex_buffer, vbuf_size);
}
