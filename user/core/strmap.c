// SPDX-License-Identifier: GPL-2.0-only
/* strmap.c - open-addressing string map with a per-process seed (see
 * strmap.h). */
#include "core/strmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static uint64_t seed;

/* A multiply-xorshift mix per 8-byte word; the seed comes from getrandom
 * once, so collisions cannot be precomputed. */
static uint64_t mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

uint64_t strmap_hash(const void *data, size_t len)
{
	if (!seed) {
		uint64_t s = 0;
		if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
			s = (uint64_t)(uintptr_t)&s ^ 0x9e3779b97f4a7c15ULL;
		seed = s | 1;
	}
	const unsigned char *p = data;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL);
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		h = mix(h ^ w) + 0x9e3779b97f4a7c15ULL;
		p += 8;
		len -= 8;
	}
	uint64_t w = 0;
	memcpy(&w, p, len);
	return mix(h ^ w ^ ((uint64_t)len << 56));
}

static struct strmap_slot *find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

static int grow(struct strmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct strmap_slot *ns = calloc(cap, sizeof(*ns));
	if (!ns)
		return -1;
	struct strmap old = *m;
	m->slots = ns;
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
	free(old.slots);
	return 0;
}

int strmap_add(struct strmap *m, const char *key, int value)
{
	/* at most half full: probes stay short */
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -1;
	uint64_t h = strmap_hash(key, strlen(key));
	struct strmap_slot *s = find(m, key, h);
	if (s->key)
		return s->value;
	s->key = key;
	s->hash = h;
	s->value = value;
	m->n++;
	return value;
}

int strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return -1;
	const struct strmap_slot *s = find(m, key, strmap_hash(key, strlen(key)));
	return s->key ? s->value : -1;
}

void strmap_free(struct strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
