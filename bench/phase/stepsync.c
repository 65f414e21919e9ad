/* stepsync: see stepsync.h. */
#include "phase/stepsync.h"

#include <string.h>

void gf_stepsync_init(struct gf_stepsync *s, unsigned n, bool (*across)(bool stop))
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->across = across;
	/* Default attributes: glibc's initialisers cannot fail. */
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
}

void gf_stepsync_destroy(struct gf_stepsync *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
}

void gf_stepsync_resize(struct gf_stepsync *s, unsigned n)
{
	pthread_mutex_lock(&s->mu);
	s->n = n;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

bool gf_stepsync_wait(struct gf_stepsync *s, unsigned local, bool stop)
{
	uint64_t gen;
	bool all;

	pthread_mutex_lock(&s->mu);
	gen = s->gen;
	s->stop |= stop;
	s->arrived++;
	if (local) {
		pthread_cond_broadcast(&s->cv);
		while (s->gen == gen)
			pthread_cond_wait(&s->cv, &s->mu);
		all = s->all;
		pthread_mutex_unlock(&s->mu);
		return all;
	}
	while (s->arrived < s->n)
		pthread_cond_wait(&s->cv, &s->mu);
	all = s->stop;
	pthread_mutex_unlock(&s->mu);
	/* MPI outside the lock: the other threads only wait for the next generation. */
	if (s->across)
		all = s->across(all);
	pthread_mutex_lock(&s->mu);
	s->all = all;
	s->stop = false;
	s->arrived = 0;
	s->gen++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return all;
}
