/*
 * list.h: intrusive doubly linked lists, typed: a struct holds its own
 * links (two pointers to its own type, named as the struct likes), and
 * the list is the pointer to its first element (and, for a queue, to its
 * last). Empty is NULL, so a zeroed struct is an empty list; an element
 * off any list has both links NULL. The operations are static inline and
 * compile to the pointer updates a hand-written list would make.
 *
 * A generator defines the operations for one type and one pair of links:
 *
 *   FSTAP_LIST_DEFINE(NAME, TYPE, PREV, NEXT): a list known by its head:
 *     NAME_push(TYPE **head, TYPE *n)      n becomes the first
 *     NAME_unlink(TYPE **head, TYPE *n)    n leaves (links cleared)
 *   FSTAP_QUEUE_DEFINE(NAME, TYPE, PREV, NEXT): a list known by its head
 *   and its tail:
 *     NAME_push_head(TYPE **head, TYPE **tail, TYPE *n)
 *     NAME_push_tail(TYPE **head, TYPE **tail, TYPE *n)
 *     NAME_unlink(TYPE **head, TYPE **tail, TYPE *n)
 *   (and NAME_list_push and NAME_list_unlink, which leave the tail alone).
 *
 * A list kept by its last element and walked backwards is a FSTAP_LIST
 * with PREV and NEXT swapped.
 */
#ifndef FSTAP_LIST_H
#define FSTAP_LIST_H

#include <stddef.h>

#define FSTAP_LIST_DEFINE(NAME, TYPE, PREV, NEXT)				\
static inline void NAME##_push(TYPE **head, TYPE *n)				\
{										\
	n->PREV = NULL;								\
	n->NEXT = *head;							\
	if (*head)								\
		(*head)->PREV = n;						\
	*head = n;								\
}										\
										\
static inline void NAME##_unlink(TYPE **head, TYPE *n)				\
{										\
	if (n->PREV)								\
		n->PREV->NEXT = n->NEXT;					\
	else									\
		*head = n->NEXT;						\
	if (n->NEXT)								\
		n->NEXT->PREV = n->PREV;					\
	n->PREV = n->NEXT = NULL;						\
}

#define FSTAP_QUEUE_DEFINE(NAME, TYPE, PREV, NEXT)				\
FSTAP_LIST_DEFINE(NAME##_list, TYPE, PREV, NEXT)				\
										\
static inline void NAME##_push_head(TYPE **head, TYPE **tail, TYPE *n)		\
{										\
	if (!*head)								\
		*tail = n;							\
	NAME##_list_push(head, n);						\
}										\
										\
static inline void NAME##_push_tail(TYPE **head, TYPE **tail, TYPE *n)		\
{										\
	n->NEXT = NULL;								\
	n->PREV = *tail;							\
	if (*tail)								\
		(*tail)->NEXT = n;						\
	else									\
		*head = n;							\
	*tail = n;								\
}										\
										\
static inline void NAME##_unlink(TYPE **head, TYPE **tail, TYPE *n)		\
{										\
	if (!n->NEXT)								\
		*tail = n->PREV;						\
	NAME##_list_unlink(head, n);						\
}

#endif
