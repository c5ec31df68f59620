/* memory.c - what Python's interpreter does for DeZero and C must do
 * itself: reference counts for Variables and Functions, the
 * autorelease pools that own every new object (step 17), and the cycle
 * collector that frees what references in a ring keep alive (step 32). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- blocks kept for reuse
 *
 * A training loop makes and frees the same few sizes of block by the
 * thousand: step 43 makes 22 Variables, 19 Functions and 23 arrays of
 * their inputs and outputs an iteration. malloc and free cost more
 * than the arithmetic on such small arrays (glibc's calloc even skips
 * its cache of freed blocks). So, as CPython keeps free lists of its
 * commonest objects, a freed block waits on a list of its size for the
 * next block of that size. What waits at exit is still reachable from
 * here, which leak checkers do not count as leaked; under
 * AddressSanitizer nothing waits, so that a use of a block after it
 * was freed is still caught. */
#ifdef __SANITIZE_ADDRESS__
enum { KEEP_BLOCKS = 0 };
#else
enum { KEEP_BLOCKS = 1 };
#endif
enum { KEPT_MAX = 512 };        /* bytes: larger blocks go back to free */

/* free_lists[size / 8]: the blocks of size bytes, a multiple of 8, each
 * starting with a pointer to the next. */
static void *free_lists[KEPT_MAX / 8 + 1];

/* The free list for blocks of size bytes; NULL for sizes not kept. */
static void **free_list(size_t size)
{
    if (!KEEP_BLOCKS || size == 0 || size % 8 != 0 || size > KEPT_MAX)
        return NULL;
    return &free_lists[size / 8];
}

void *block_new(size_t size, const char *who)
{
    void **list = free_list(size);
    void *block = list ? *list : NULL;
    if (!block)
        return allocate(1, size, who);
    *list = *(void **)block;
    memset(block, 0, size);
    return block;
}

/* Accepts NULL. */
void block_free(void *block, size_t size)
{
    void **list = free_list(size);
    if (!list) {
        free(block);
    } else if (block) {
        *(void **)block = *list;
        *list = block;
    }
}

/* Adds a reference to object, a Variable or a Function; returns it. */
void *retain(void *object)
{
    ((Object *)object)->refcount++;
    return object;
}

/* Every object alive, in a ring through this one, which is not an
 * object but the ring's fixed point: the collector's list. */
static Object all_objects = {.prev = &all_objects, .next = &all_objects};

/* Whether something that makes cycles ran since the last collection. */
static bool collection_requested;

/* Objects whose count has fallen to zero, waiting to be destroyed. */
static Object *doomed;

/* Drops a reference to object; at zero the object leaves the list of
 * objects alive and is destroyed, which drops its own references and
 * may free more objects. Those wait in a list rather than being
 * destroyed by a call inside this one, so a long chain is freed by a
 * loop, not by a recursion as deep as the chain. Accepts NULL. */
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
        d->prev->next = d->next;
        d->next->prev = d->prev;
        d->type->destroy(d);
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
 * the innermost pool can be drained. Then collects cycles if something
 * that makes them ran since the last collection (gc_request), and
 * always when the outermost pool closes, so that a cycle set free by a
 * release after the last collection is not left at the end. */
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
    if (collection_requested || !innermost_pool)
        gc_collect();
}

/* A new zeroed object of size bytes (a struct that starts with an
 * Object) of the given type, on the list of objects alive, whose one
 * reference belongs to the innermost pool; type->destroy frees it with
 * object_free when its count falls to zero. who names the caller in
 * errors. */
void *object_new(size_t size, const ObjectType *type, const char *who)
{
    if (!innermost_pool)
        nd_error(who, "no autorelease pool is open; call pool_new() "
                 "first");
    Object *o = block_new(size, who);
    o->size = size;
    o->refcount = 1;
    o->type = type;
    o->prev = all_objects.prev;
    o->next = &all_objects;
    o->prev->next = o;
    all_objects.prev = o;
    return autorelease(o);
}

void object_free(Object *object)
{
    block_free(object, object->size);
}

/* ---- the cycle collector */

/* Asks for a collection when the next pool is drained. */
void gc_request(void)
{
    collection_requested = true;
}

/* visit for the count: a reference from another object. */
static void uncount(Object *referent, void *unused)
{
    (void)unused;
    referent->gc_refs--;
}

/* Puts o on the work list *work. */
static void push_work(Object **work, Object *o)
{
    o->gc_work = *work;
    *work = o;
}

/* visit for the marking: what a reachable object refers to is
 * reachable, and its own references are still to be followed. */
static void mark_reachable(Object *referent, void *work)
{
    if (referent->gc_refs == 0) {
        referent->gc_refs = 1;
        push_work(work, referent);
    }
}

/* Frees every group of objects that only refer to one another, which
 * reference counting cannot free (Python: gc.collect()), by trial
 * deletion, the algorithm of CPython's collector:
 *  1. each object's count, less the references other objects hold, is
 *     the number of references from outside: pools, retain calls;
 *  2. what has one is reachable, and so is everything it refers to,
 *     and so on;
 *  3. the rest is garbage. Each of its objects is held for a moment
 *     while all of them drop their references (clear), which breaks
 *     the cycles; then letting go of them frees them.
 * Returns the number of objects freed. */
size_t gc_collect(void)
{
    collection_requested = false;
    for (Object *o = all_objects.next; o != &all_objects; o = o->next)
        o->gc_refs = o->refcount;
    for (Object *o = all_objects.next; o != &all_objects; o = o->next)
        o->type->traverse(o, uncount, NULL);

    Object *work = NULL;        /* reachable, references not followed */
    for (Object *o = all_objects.next; o != &all_objects; o = o->next)
        if (o->gc_refs > 0)
            push_work(&work, o);
    while (work) {
        Object *o = work;
        work = o->gc_work;
        o->type->traverse(o, mark_reachable, &work);
    }

    Object *garbage = NULL;     /* gc_refs is 0 only for garbage now */
    size_t count = 0;
    for (Object *o = all_objects.next; o != &all_objects; o = o->next)
        if (o->gc_refs == 0) {
            push_work(&garbage, retain(o));
            count++;
        }
    for (Object *o = garbage; o; o = o->gc_work)
        o->type->clear(o);
    while (garbage) {
        Object *o = garbage;
        garbage = o->gc_work;
        release(o);
    }
    return count;
}
