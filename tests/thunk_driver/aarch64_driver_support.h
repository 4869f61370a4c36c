/* aarch64_driver_support.h - what the two A64 drivers (aarch64_driver.c,
 * aarch64_routines_driver.c) share: failing with the line, and placing a
 * generated routine's bytes on executable memory. */
#ifndef AARCH64_DRIVER_SUPPORT_H
#define AARCH64_DRIVER_SUPPORT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FAIL(...)                       \
  do {                                  \
    printf("FAIL line %d: ", __LINE__); \
    printf(__VA_ARGS__);                \
    printf("\n");                       \
    fflush(stdout);                     \
    exit(1);                            \
  } while (0)
#define CHECK(cond, ...)            \
  do {                              \
    if (!(cond)) FAIL(__VA_ARGS__); \
  } while (0)

/* Places `path`'s bytes (under 64 KiB) on a fresh anonymous mapping: written
 * read+write, then made read+execute. A fresh page needs no cache flush:
 * Linux arm64 syncs a page the first time it is mapped executable. */
static unsigned char* place_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  CHECK(f != NULL, "open %s: %s", path, strerror(errno));
  static unsigned char buffer[1 << 16];
  size_t n = fread(buffer, 1, sizeof buffer, f);
  fclose(f);
  CHECK(n > 0 && n < sizeof buffer, "%s: %zu bytes", path, n);
  size_t length = (n + 4095) & ~(size_t)4095;
  unsigned char* code =
      mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(code != MAP_FAILED, "mmap: %s", strerror(errno));
  memcpy(code, buffer, n);
  CHECK(mprotect(code, length, PROT_READ | PROT_EXEC) == 0, "mprotect: %s", strerror(errno));
  *size = n;
  return code;
}

#endif
