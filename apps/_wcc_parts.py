"""WCC on one part of a graph split over ranks (minigr.partition): the app's
union-find on the part, then rounds in which only the border labels that
fell cross (see PartitionedWCC)."""
import numpy

from minigr.arrays import to_host
from minigr.enactor import Result, Timer, problem
from minigr.transforms import Functor, compact_transform, copied, transform

from .wcc import WCC

def run(part):
    """WCC on one part of a partitioned graph (minigr.partition), called by
    every rank: the component (its smallest user's id) of the part's own vertices."""
    run = problem(part.graph, ("wcc part",), lambda: PartitionedWCC(part))
    with Timer(part.graph.device) as timer:
        rounds, sent = run.label_components_of_parts()
    rounds = max(rounds, 1)  # the parts' own union-find counts as one, as WCC on one device does
    return Result({"component": copied(run.label[:part.owned])}, rounds, timer.ms, part.graph.num_edges,
                  {"bytes_sent_per_iteration": sent // rounds})


# A local tree's label is lowest[its root]: the smallest label of its vertices
# (labels start as the user's ids), lowered by what peers send.
NO_LABEL = "void operator()(long long v) const { lowest[v] = 2147483647; }"
LOWEST = "void operator()(long long v) const { minigr::lower(&lowest[root[v]], label[v]); }"
TAKE_LOWEST = "void operator()(long long v) const { label[v] = lowest[root[v]]; }"
# A border entry (a proxy, or a mirror of a peer's proxy) whose tree's label is
# below the last one it and its peer's entry agreed on (`sent`) sends it: one
# word, the peer's entry index << 32 | the label.
FELL = "bool operator()(long long e) const { return lowest[root[entries[e]]] < sent[e]; }"
SEND = """void operator()(long long dest, long long e) const {
    const int l = lowest[root[entries[e]]];
    sent[e] = l;
    outbox[dest] = (long long)partner[e] << 32 | l;
    sender[dest] = e;
}"""
TAKE = """void operator()(long long i) const {
    const int e = (int)(inbox[i] >> 32), l = (int)(inbox[i] & 0xffffffff);
    atomicMin(&sent[e], l);
    atomicMin(&lowest[root[entries[e]]], l);
}"""
FIRST_ROUNDS = 2  # before the giant's vote: the second spreads what the first brought over each local component


class PartitionedWCC(WCC):
    """WCC on a part: union-find hooks each vertex to its first neighbours,
    two rounds spread the smallest user's id over the borders, and the label
    most sampled vertices then share names the giant component; the other
    vertices hook along their other edges, and rounds spread the smallest id
    over the borders till none falls. Labels come only along edges, so two
    vertices with the giant's label are joined already: an edge between them
    is one that neither row need hook.

    A round sends, for each pair of border entries (a proxy and its owner's
    mirror), the label of either side's local tree where it fell below the
    last label the pair agreed on (at first the vertex's own id, which both
    sides' labels are at most): each label that fell crosses once, and a
    label a peer sent is not sent back. Both sides of a pair send at once,
    so one exchange a round moves labels both ways."""

    def __init__(self, part):
        xp, n = part.xp, max(part.graph.num_vertices, 1)
        self.part = part
        self.label, self.lowest = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        super().__init__(part.graph, component=self.label)
        entries, partner, starts = _border_entries(part)
        self.entries, self.entry_offsets = entries, xp.asarray(starts)
        self.sent = xp.empty(len(entries), dtype=numpy.int32)
        self.outbox, self.inbox = (xp.empty(len(entries), dtype=numpy.int64) for _ in range(2))
        self.sender = xp.empty(len(entries), dtype=numpy.int64)
        self.lowest_of_roots = [Functor(NO_LABEL, filename="<wcc no label>", lowest=self.lowest), Functor(
            LOWEST, filename="<wcc lowest>", lowest=self.lowest, root=self.root, label=self.label)]
        self.take_lowest = Functor(TAKE_LOWEST, filename="<wcc take lowest>", lowest=self.lowest, root=self.root,
                                   label=self.label)
        trees = dict(lowest=self.lowest, root=self.root, entries=entries, sent=self.sent)
        self.fell = Functor(FELL, filename="<wcc fell>", **trees)
        self.send = Functor(SEND, filename="<wcc send>", outbox=self.outbox, partner=partner, sender=self.sender,
                            **trees)
        self.take = Functor(TAKE, filename="<wcc take>", inbox=self.inbox, **trees)

    def label_components_of_parts(self):
        """label[v] becomes v's component: (the rounds it took, bytes this
        rank sent); waits. Every rank makes the same exchanges, a part with
        no vertices too."""
        if self.n:
            self.hook_sampled()
            self.sets.roots(self.root)
        self.label[:self.n] = self.part.user_ids
        self.sent[:] = self.part.user_ids[self.entries]
        rounds, sent = self.rounds(FIRST_ROUNDS)
        self.vote_giant()
        self.part.comm.allreduce(self.best, "max")
        if self.n:
            self.hook_rest()
        more, more_sent = self.rounds(2**31 - 1)
        return rounds + more, sent + more_sent

    def rounds(self, most):
        """Up to `most` rounds, fewer where no label falls anywhere, with
        label[v] the lowest of v's tree before and after: (rounds, bytes sent)."""
        comm, xp = self.part.comm, self.part.xp
        for f in self.lowest_of_roots:
            transform(self.n, f)
        done, sent = 0, 0
        while done < most:
            _, count = compact_transform(len(self.entries), self.fell, self.send)
            counts = xp.zeros((comm.size, comm.size), dtype=numpy.int64)  # [sender, receiver]
            firsts = xp.searchsorted(self.sender[:count], self.entry_offsets)
            counts[comm.rank] = firsts[1:] - firsts[:-1]
            comm.allreduce(counts)
            counts = to_host(counts)
            if not counts.any():
                break
            sends = numpy.concatenate([[0], numpy.cumsum(counts[comm.rank])])
            receives = numpy.concatenate([[0], numpy.cumsum(counts[:, comm.rank])])
            comm.exchange([self.outbox[a:b] for a, b in zip(sends, sends[1:])],
                          [self.inbox[a:b] for a, b in zip(receives, receives[1:])])
            transform(int(receives[-1]), self.take)
            done, sent = done + 1, sent + 8 * (count + counts.size)
        transform(self.n, self.take_lowest)
        return done, sent


def _border_entries(part):
    """(entries, partner, starts): the part's border as local ids, by peer
    (peer q's block from starts[q]): its proxies of q's vertices, then its
    mirrors for q; partner[e]: the index of entry e's counterpart among the
    peer's entries (the peers tell each other where their blocks start)."""
    xp, size, rank = part.xp, part.comm.size, part.rank
    proxies = [numpy.arange(part.proxy_offsets[q], part.proxy_offsets[q + 1]) for q in range(size)]
    mirrors = [part.mirror_offsets[q:q + 2] for q in range(size)]
    sizes = [len(proxies[q]) + int(m[1] - m[0]) for q, m in enumerate(mirrors)]
    starts = numpy.concatenate([[0], numpy.cumsum(sizes)]).astype(numpy.int64)
    theirs = [xp.zeros(1, dtype=numpy.int64) for _ in range(size)]
    part.comm.exchange([xp.asarray(starts[q:q + 1]) for q in range(size)], theirs)
    entries, partner = [xp.zeros(0, dtype=numpy.int32)], [numpy.zeros(0, dtype=numpy.int64)]
    for q in range(size):
        if q == rank:
            continue
        a, b = mirrors[q]
        entries += [xp.asarray(proxies[q], dtype=numpy.int32), part.mirrors[a:b]]
        # my proxy j is the peer's mirror j, after its proxies of mine (as many as my mirrors for it), and
        # my mirror i its proxy i: a turn of the block by my mirror count
        partner.append(int(theirs[q][0]) + (numpy.arange(sizes[q]) + (b - a)) % max(sizes[q], 1))
    return xp.concatenate(entries), xp.asarray(numpy.concatenate(partner), dtype=numpy.int32), starts
