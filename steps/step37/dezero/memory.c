/* memory.c - what Python's interpreter does for DeZero and C must do
 * itself: reference counts for Variables and Functions, and the
 * autorelease pools that own every new object (step 17). */
#include <stdbool.h>
#include <stdlib.h>

#include "dezero.h"

/* calloc that stops the program when memory runs out, as every
 * constructor here does: count zeroed elements of size bytes. */
void *allocate(size_t count, size_t size, const char *who)
{
    void *p = calloc(count, size);
    if (!p)
        nd_error(who, "out of memory");
    return p;
}

/* Adds a reference to object, a Variable or a Function; returns it. */
void *retain(void *object)
{
    ((Object *)object)->refcount++;
    return object;
}

/* Objects whose count has fallen to zero, waiting to be destroyed. */
static Object *doomed;

/* Drops a reference to object; at zero the object is destroyed, which
 * drops its own references and may free more objects. Those wait in a
 * list rather than being destroyed by a call inside this one, so a long
 * chain is freed by a loop, not by a recursion as deep as the chain.
 * Accepts NULL. */
void release(void *object)
{
    static bool destroying;     /* the loop below is running */
    Object *o = object;
    if (!o || --o->refcount > 0)
        return;
    o->next_doomed = doomed;
    doomed = o;
    if (destroying)
        return;                 /* the running loop will get to it */
    destroying = true;
    while (doomed) {
        Object *d = doomed;
        doomed = d->next_doomed;
        d->destroy(d);
    }
    destroying = false;
}

/* An autorelease pool holds one reference to each object made while it
 * is the innermost pool, and releases them all when drained. */
typedef struct Pool {
    Object **objects;           /* owned array; a reference to each */
    size_t count;
    size_t capacity;
    struct Pool *outer;         /* the pool that was innermost before */
} Pool;

static Pool *innermost_pool;

/* Opens a new pool, which becomes the innermost one. Close it with
 * pool_drain(). */
Pool *pool_new(void)
{
    Pool *pool = allocate(1, sizeof *pool, "pool_new");
    pool->outer = innermost_pool;
    innermost_pool = pool;
    return pool;
}

/* Hands the caller's reference to object over to the innermost pool.
 * Returns object. */
void *autorelease(void *object)
{
    Pool *pool = innermost_pool;
    if (!pool)
        nd_error("autorelease", "no pool is open; call pool_new() first");
    if (pool->count == pool->capacity) {
        size_t capacity = pool->capacity ? 2 * pool->capacity : 64;
        Object **objects = realloc(pool->objects,
                                   capacity * sizeof *objects);
        if (!objects)
            nd_error("autorelease", "out of memory");
        pool->objects = objects;
        pool->capacity = capacity;
    }
    pool->objects[pool->count++] = object;
    return object;
}

/* Releases every reference the pool holds, newest first, and closes
 * it; the pool that was innermost before it is innermost again. Only
 * the innermost pool can be drained. */
void pool_drain(Pool *pool)
{
    if (pool != innermost_pool)
        nd_error("pool_drain", "the pool is not the innermost one; drain "
                 "the pools opened after it first");
    while (pool->count > 0)
        release(pool->objects[--pool->count]);
    innermost_pool = pool->outer;
    free(pool->objects);
    free(pool);
}

/* A new zeroed object of size bytes (a struct that starts with an
 * Object), whose one reference belongs to the innermost pool; destroy
 * frees it when its count falls to zero. who names the caller in
 * errors. */
void *object_new(size_t size, void (*destroy)(Object *), const char *who)
{
    if (!innermost_pool)
        nd_error(who, "no autorelease pool is open; call pool_new() "
                 "first");
    Object *o = allocate(1, size, who);
    o->refcount = 1;
    o->destroy = destroy;
    return autorelease(o);
}
