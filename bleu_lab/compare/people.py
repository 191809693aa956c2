"""The people against the metrics: for a ``--scores`` metric H that holds human judgements (MQM, direct assessment),
each system's score and rank by every metric and by H, H's own significance clusters, and every pair of systems a
metric and H order the opposite way, with both sides' tests.

- Rank: 1 + the number of systems strictly better in that metric (its direction respected: lower TER or fewer MQM
  error points is better), so tied systems share the best rank of their group ("1, 2, 2, 4", scipy's
  ``rankdata(method="min")`` on the negated scores).
- Clusters (``ranked_clusters``), as WMT ranks systems and as the report clusters by BLEU: the best system and every
  system not significantly different from it (Holm's adjusted p at ``alpha``) form the first cluster, the same on
  the systems left, and so on; within a cluster, by score.
- Which system of a pair a metric finds better: the sign of the gap its paired tests test (BLEU, chrF, TER: the
  corpus scores; a ``--scores`` metric: its means on the segments both systems are rated on, the ranking's means
  when both are rated on the same segments). A zero gap is a tie: no side, so never a disagreement.
- A disagreement is flagged where either side's paired bootstrap (Holm-adjusted over that metric's pairs, as the
  report's "better" verdicts read) is below ``alpha``: a significant metric contradicted by the people, or the
  people significantly preferring the system the metric ranks lower. Both sides' approximate-randomization p are
  kept beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class PairSide:
    """One metric's paired tests of two systems: ``difference`` = the metric of ``system`` - of ``baseline`` (as its
    numbers run) and Holm's adjusted p of approximate randomization (``ar_holm``) and the paired bootstrap
    (``bs_holm``) over that metric's pairs."""

    system: str
    baseline: str
    difference: float
    ar_holm: float
    bs_holm: float


@dataclass(frozen=True)
class MetricTests:
    """What the report found for one metric: each system's score, its direction and every pair tested."""

    name: str
    higher_is_better: bool
    scores: dict[str, float]  # system -> score, in the report's system order
    pairs: tuple[PairSide, ...]

    def better(self, side: PairSide) -> str | None:
        """The system of the pair this metric scores better (None: a tie)."""
        if side.difference == 0:
            return None
        return side.system if (side.difference > 0) == self.higher_is_better else side.baseline

    def side(self, a: str, b: str) -> PairSide:
        for p in self.pairs:
            if {p.system, p.baseline} == {a, b}:
                return p
        raise KeyError(f"{self.name} has no test of {a!r} against {b!r}")


@dataclass(frozen=True)
class Ranking:
    """One metric's score and rank of every system (rank 1 the best; tied systems share a rank)."""

    metric: str
    higher_is_better: bool
    scores: dict[str, float]
    ranks: dict[str, int]

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"


@dataclass(frozen=True)
class PeopleDisagreement:
    """A pair of systems that ``metric`` and the people order the opposite way, with both sides' tests."""

    metric: str
    people: str
    metric_better: str  # the system the metric scores better
    people_better: str  # the system the people score better
    metric_side: PairSide
    people_side: PairSide
    metric_significant: bool  # the metric's bootstrap, Holm-adjusted, below alpha
    people_significant: bool

    @property
    def flagged(self) -> bool:
        """Whether either side's test is significant."""
        return self.metric_significant or self.people_significant

    @property
    def significant_by(self) -> str:
        """"both", the metric's name, the people's, or "neither"."""
        if self.metric_significant and self.people_significant:
            return "both"
        if self.metric_significant or self.people_significant:
            return self.metric if self.metric_significant else self.people
        return "neither"


@dataclass(frozen=True)
class PeopleTable:
    """The people (``people``, a --scores metric) against every metric: rankings (the people's first), the
    people's clusters by test ("AR", "BS"; none with two systems) and every pair a metric and they order the
    opposite way."""

    people: str
    higher_is_better: bool
    alpha: float
    rankings: tuple[Ranking, ...]
    clusters: dict[str, list[list[str]]]
    disagreements: tuple[PeopleDisagreement, ...]
    tests: MetricTests  # the people's own pairwise tests

    @property
    def order(self) -> list[str]:
        """The systems by the people's rank, best first (ties in the report's order)."""
        ranked = self.rankings[0].ranks
        return sorted(ranked, key=ranked.__getitem__)

    def ranking(self, metric: str) -> Ranking:
        for r in self.rankings:
            if r.metric == metric:
                return r
        raise KeyError(f"no metric {metric!r}; the table has {', '.join(r.metric for r in self.rankings)}")


def ranks(scores: Mapping[str, float], higher_is_better: bool) -> dict[str, int]:
    """Each system's rank: 1 + how many systems are strictly better (ties share the best rank of their group)."""
    sign = 1 if higher_is_better else -1
    return {name: 1 + sum(sign * other > sign * value for other in scores.values()) for name, value in scores.items()}


def ranked_clusters(scores: Mapping[str, float], higher_is_better: bool,
                    different: Callable[[str, str], bool]) -> list[list[str]]:
    """WMT-style clusters: the best system by ``scores`` and every system not ``different`` from it form the first
    cluster; the same on the systems left, until none is left. Within a cluster, by score (ties in the given
    order)."""
    sign = 1 if higher_is_better else -1
    left = sorted(scores, key=lambda name: -sign * scores[name])
    found = []
    while left:
        best = left[0]
        cluster = [name for name in left if name == best or not different(best, name)]
        found.append(cluster)
        left = [name for name in left if name not in cluster]
    return found


def significant(side: PairSide, test: str, alpha: float) -> bool:
    """Whether ``test``'s ("AR" or "BS") Holm-adjusted p is below ``alpha`` (a zero gap never is)."""
    return side.difference != 0 and (side.ar_holm if test == "AR" else side.bs_holm) < alpha


def people_table(people: MetricTests, metrics: Sequence[MetricTests], alpha: float) -> PeopleTable:
    """``people`` against each of ``metrics`` (the people's own entry among them is skipped): rankings, the people's
    clusters (more than two systems) and the disagreements, in the order of ``people.pairs``."""
    others = [m for m in metrics if m.name != people.name]
    rankings = tuple(Ranking(m.name, m.higher_is_better, dict(m.scores), ranks(m.scores, m.higher_is_better))
                     for m in (people, *others))
    clusters = ({test: ranked_clusters(people.scores, people.higher_is_better,
                                       lambda a, b, test=test: significant(people.side(a, b), test, alpha))
                 for test in ("AR", "BS")} if len(people.scores) > 2 else {})
    found = []
    for m in others:
        for side in people.pairs:
            theirs = m.side(side.system, side.baseline)
            by_people, by_metric = people.better(side), m.better(theirs)
            if by_people is None or by_metric is None or by_people == by_metric:
                continue
            found.append(PeopleDisagreement(m.name, people.name, by_metric, by_people, theirs, side,
                                            significant(theirs, "BS", alpha), significant(side, "BS", alpha)))
    return PeopleTable(people.name, people.higher_is_better, alpha, rankings, clusters, tuple(found), people)
