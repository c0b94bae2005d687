/*
 * crc32c.c: CRC32C (Castagnoli polynomial, reflected 0x82F63B78), the
 * checksum of trace chunks. Uses the SSE4.2 crc32 instruction when the CPU
 * has it, a slice-by-8 table otherwise; both give the same values
 * (check value: crc32c("123456789") = 0xe3069283).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fstap/trace.h"

static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int have_sse42;

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82F63B78u & -(c & 1));
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_table[j][i] = (crc_table[j - 1][i] >> 8) ^
					  crc_table[0][crc_table[j - 1][i] & 0xff];
#if defined(__x86_64__)
	__builtin_cpu_init();
	have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc_sw(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= crc;
		crc = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^
		      crc_table[5][(w >> 16) & 0xff] ^ crc_table[4][(w >> 24) & 0xff] ^
		      crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff] ^
		      crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t fstap_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
	crc = ~crc;
#if defined(__x86_64__)
	if (have_sse42)
		return ~crc_hw(crc, buf, len);
#endif
	return ~crc_sw(crc, buf, len);
}
