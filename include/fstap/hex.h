/*
 * hex.h: the value of one hexadecimal digit, for the parsers that read
 * hex-encoded bytes (JSON Lines values, strace's \xNN escapes).
 */
#ifndef FSTAP_HEX_H
#define FSTAP_HEX_H

/* 0-15, or -1 if c is not a hex digit. */
static inline int fstap_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
