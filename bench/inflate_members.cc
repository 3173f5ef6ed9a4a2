// The physical baseline for reading wheels: ISA-L inflating every .so member of a zip in one
// thread, output discarded; with --largest, only the largest .so member (a deflate stream is
// one thread's work: that member is the critical path on any number of cores). `abicheck` is
// measured against these.
//   inflate_members WHEEL [--largest]
#include <isa-l/igzip_lib.h>
#include <zip.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const bool largest_only = argc == 3 && std::strcmp(argv[2], "--largest") == 0;
  if (argc != 2 && !largest_only) return 2;
  int err = 0;
  zip_t* z = zip_open(argv[1], ZIP_RDONLY, &err);
  if (z == nullptr) return 3;
  zip_int64_t largest = -1;
  zip_uint64_t largest_size = 0;
  for (zip_int64_t i = 0; largest_only && i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    if (zip_stat_index(z, i, 0, &st) == 0 && std::strstr(st.name, ".so") != nullptr &&
        st.size >= largest_size) {
      largest = i;
      largest_size = st.size;
    }
  }
  std::vector<uint8_t> in(1 << 20), out(1 << 20);
  unsigned long long total = 0;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    if (largest_only && i != largest) continue;
    zip_stat_t st;
    if (zip_stat_index(z, i, 0, &st) != 0 || std::strstr(st.name, ".so") == nullptr) continue;
    zip_file_t* f = zip_fopen_index(z, i, ZIP_FL_COMPRESSED);
    inflate_state s;
    isal_inflate_init(&s);
    bool done = false;
    while (!done) {
      if (s.avail_in == 0) {
        zip_int64_t n = zip_fread(f, in.data(), in.size());
        if (n <= 0) break;
        s.next_in = in.data();
        s.avail_in = static_cast<uint32_t>(n);
      }
      if (st.comp_method == 0) {  // stored: the bytes are the data
        total += s.avail_in;
        s.avail_in = 0;
        continue;
      }
      s.next_out = out.data();
      s.avail_out = static_cast<uint32_t>(out.size());
      if (isal_inflate(&s) != ISAL_DECOMP_OK) return 4;
      total += out.size() - s.avail_out;
      done = s.block_state == ISAL_BLOCK_FINISH;
    }
    zip_fclose(f);
  }
  zip_discard(z);
  std::printf("%llu bytes inflated\n", total);
  return 0;
}
