"""Core benchmark: bulk writes, then scoped recall, at 100k memories across 1,000 users.

Usage (from the project root)::

    python benchmarks/core.py [--memories 100000] [--users 1000] [--queries 500]
                              [--db PATH] [--out FILE]

What it does, in order (one process, one SQLite file, the default embedder unless
``--embedder`` says otherwise):

1. Generates a deterministic (``--seed``) synthetic workload: per user ~100 memories from
   English, Chinese and mixed templates (preferences, facts, dated events), ~7% slot
   writes (``report.format``, ``notify.channel``, ...) plus ~3% re-writes of a slot the
   user already has, which the vault turns into updates. Writes of different users are
   interleaved, as app traffic would be; each user's own writes keep their order.
   ``--memories`` is the number of memory rows the build must end with; the updates come
   on top (so ~103k writes for 100k memories).
2. Loads the embedder and warms it up (and jieba) outside every timer.
3. Build, with embedding: ``Vault.remember_many(items, batch=--batch)``, called on
   chunks of ``--chunk`` items so the benchmark does not keep 100k results alive.
   Writes/s = writes / wall time of those calls. The same run is split without changing
   the code path: ``vault._vectors`` (the embedding call of remember_many) and
   ``vault.store.transaction`` are wrapped in timers on the instance, so
   wall = embed + transaction (rows, FTS, vectors, revisions, COMMIT) + the rest
   (``_prepare`` validation). "store-only (in-run)" = writes / (wall - embed).
4. File size (db, -wal, -shm, and per table via ``dbstat``) right after the build.
5. Recall, ``--queries`` queries of random users from question templates in both
   languages, top_k=10, after ``--warmup`` unmeasured ones:
   - with query embedding: ``vault.recall(scope, q, top_k=10)`` end to end;
   - without: the query vectors are computed first (that time is reported on its own
     as "query embedding alone"), then the same ``vault.recall`` runs with each embedder
     swapped, on the instance, for a proxy whose ``embed_query`` is a dict lookup. So
     it is exactly src's recall path minus the embedding, whatever src currently does
     (an earlier version replayed recall's steps here; src changed its text scoring
     while this was written, which is the drift that approach invites). In that run
     the store calls (``text_candidates``, ``vector_candidates``, ``fetch``) are timed
     through instance wrappers; "rest" is the Python in between (validation, query
     terms, scoring/fusion, rank). Each query's top-10 (ids, scores) of both runs is
     compared, as a check that the proxy changed nothing but the embedding time.
   The two run alternately first per query, so background load hits both alike.
   Then every 6 consecutive queries, as alternate "User:"/"Assistant:" lines, make one
   conversation query (end to end, with line votes: docs/retrieval.md).
6. Single writes: ``--single`` plain ``vault.remember()`` calls (70% new facts, 30% new
   values of an existing slot) on existing users; per-call latency, which includes
   embedding one text and a COMMIT with ``synchronous=FULL``.
7. Store-only replay: ``--store-sample`` writes for new users, their vectors computed
   beforehand; ``vault._vectors`` is replaced on the instance by a dict lookup and the
   same ``remember_many`` runs. Measured after recall, so recall ran at ``--memories``.

Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of this process (it includes the
embedding model and the generated workload; the baseline before the build is shown).
Targets (from the issue) are checked in the printed table only; this is not a test.
The default database lives in a temporary directory that is removed at the end; a
``--db`` path must not exist yet and is kept.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import platform
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memvault.textindex import index_text
from memvault.vault import Vault

PROJECT_ROOT = Path(__file__).resolve().parents[1]

TARGET_RECALL_P95_MS = 25.0
TARGET_WRITES_PER_S = 500.0
TOP_K = 10

# --------------------------------------------------------------------------------------
# Synthetic workload
# --------------------------------------------------------------------------------------

EN_DRINKS = ["oat milk lattes", "green tea", "black coffee", "sparkling water", "matcha",
             "earl grey", "hot chocolate", "cold brew", "jasmine tea", "espresso"]
ZH_DRINKS = ["拿铁", "绿茶", "美式咖啡", "乌龙茶", "豆浆", "奶茶", "普洱茶", "柠檬水", "菊花茶"]
EN_GENRES = ["jazz", "lo-fi hip hop", "classical", "indie rock", "k-pop", "ambient",
             "blues", "techno", "folk", "opera"]
ZH_GENRES = ["爵士乐", "古典音乐", "流行歌", "民谣", "摇滚", "相声", "粤语歌", "轻音乐"]
EN_ACTIVITIES = ["coding", "running", "cooking", "commuting", "reading", "cleaning",
                 "driving", "studying"]
ZH_ACTIVITIES = ["写代码", "跑步", "做饭", "通勤", "看书", "开车", "加班", "健身"]
EN_FOODS = ["cilantro", "mushrooms", "spicy food", "shellfish", "blue cheese", "olives",
            "raw onions", "lamb", "eggplant", "tofu"]
ZH_FOODS = ["香菜", "蘑菇", "辣椒", "海鲜", "羊肉", "茄子", "苦瓜", "榴莲", "内脏"]
EN_JOBS = ["data engineer", "product manager", "nurse", "high-school teacher", "designer",
           "accountant", "civil engineer", "sales lead", "researcher", "pharmacist"]
ZH_JOBS = ["后端开发", "产品经理", "护士", "中学老师", "设计师", "会计", "销售", "律师", "医生"]
EN_COMPANIES = ["fintech startup", "hospital", "logistics company", "game studio",
                "university lab", "law firm", "bank", "car maker"]
ZH_COMPANIES = ["互联网公司", "医院", "物流公司", "游戏公司", "银行", "律师事务所", "外企",
                "研究所"]
EN_CITIES = ["Berlin", "Shanghai", "Toronto", "Singapore", "Lisbon", "Austin", "Osaka",
             "Melbourne", "Nairobi", "Seoul", "Dublin", "Chengdu"]
ZH_CITIES = ["北京", "上海", "深圳", "杭州", "成都", "广州", "南京", "武汉", "西安", "厦门", "苏州"]
EN_PETS = ["cat", "dog", "parrot", "rabbit", "hamster", "turtle"]
ZH_PETS = ["猫", "狗", "鹦鹉", "兔子", "仓鼠", "乌龟"]
PET_NAMES = ["Mochi", "Biscuit", "Luna", "Tofu", "Pepper", "Milo", "Nala", "Coco", "Dumpling",
             "Rex", "Kiwi", "Bao"]
EN_ALLERGENS = ["peanuts", "penicillin", "pollen", "cats", "gluten", "shellfish", "latex",
                "dust mites"]
ZH_ALLERGENS = ["花生", "青霉素", "花粉", "猫毛", "海鲜", "芒果", "尘螨", "牛奶"]
EN_RELATIVES = ["sister", "brother", "daughter", "son", "mother", "father", "wife", "husband",
                "partner", "best friend"]
ZH_RELATIVES = ["姐姐", "哥哥", "女儿", "儿子", "妈妈", "爸爸", "老婆", "老公", "好朋友"]
EN_PEOPLE = ["Mia", "Noah", "Ava", "Liam", "Sofia", "Lucas", "Emma", "Ethan", "Chloe",
             "Daniel", "Grace", "Oliver"]
ZH_PEOPLE = ["小美", "王磊", "李娜", "张伟", "陈静", "刘洋", "小雨", "周杰", "晓晓", "阿强"]
EN_TRANSPORT = ["bike", "subway", "bus", "car", "tram", "e-scooter"]
ZH_TRANSPORT = ["地铁", "公交", "自行车", "出租车", "电动车", "班车"]
EN_SKILLS = ["Spanish", "piano", "pottery", "rock climbing", "Rust", "watercolor",
             "Japanese", "salsa dancing", "chess"]
ZH_SKILLS = ["日语", "钢琴", "游泳", "书法", "吉他", "摄影", "围棋", "Python 编程"]
EN_DEVICES = ["MacBook", "ThinkPad", "Pixel phone", "iPad", "Linux desktop", "Surface"]
EN_APPOINTMENTS = ["dentist", "eye doctor", "physiotherapy", "haircut", "vet",
                   "annual checkup", "tax advisor"]
ZH_APPOINTMENTS = ["牙医", "眼科", "体检", "理发", "宠物医院", "复诊", "中医"]
EN_EVENT_KINDS = ["conference", "wedding", "job interview", "family visit", "hackathon",
                  "marathon"]
ZH_EVENT_KINDS = ["技术大会", "婚礼", "面试", "家庭聚会", "马拉松", "年会", "培训"]
EN_PROJECTS = ["billing migration", "search revamp", "mobile onboarding", "data warehouse",
               "Q3 roadmap", "kitchen renovation"]
ZH_PROJECTS = ["支付重构", "搜索优化", "用户增长", "数据中台", "年度预算", "装修"]
TOOLS = ["Notion", "Excel", "VS Code", "Figma", "Jira", "Obsidian", "PyCharm", "飞书"]
ZH_TASKS = ["记笔记", "做报表", "写周报", "画原型", "管理任务", "整理账单"]
LEADS_EN = ["btw, ", "remember that ", "just so you know, ", "fyi: "]
LEADS_ZH = ["记住：", "顺便说一下，", "跟你说，", "备注一下："]

# slot -> (possible values, English content template or None for the vault's "slot: value")
SLOTS: dict[str, tuple[list[Any], str | None]] = {
    "report.format": (["pdf", "markdown", "docx", "html", "xlsx"],
                      "Wants reports delivered as {v}."),
    "notify.channel": (["email", "slack", "sms", "wechat", "push"],
                       "通知方式改成 {v}。"),
    "ui.theme": (["dark", "light", "system"], "Prefers the {v} theme in every app."),
    "ui.language": (["en", "zh-CN", "zh-TW", "ja", "fr"], None),
    "reply.length": (["short", "medium", "long"], "回答长度偏好：{v}。"),
    "timezone": (["Asia/Shanghai", "Europe/Berlin", "America/New_York", "UTC", "Asia/Tokyo"],
                 "Lives in the {v} time zone."),
    "units": (["metric", "imperial"], None),
    "diet": (["vegetarian", "vegan", "pescatarian", "halal", "no restrictions"],
             "Diet: {v}."),
    "coffee.order": (["flat white", "americano", "latte", "拿铁", "美式"],
                     "Usual coffee order is a {v}."),
    "meeting.reminder_minutes": ([5, 10, 15, 30], None),
    "calendar.default_view": (["week", "month", "day"], "日历默认显示{v}视图。"),
    "name.preferred": (["Alex", "Sam", "Jo", "小王", "Kiki", "Max"],
                       "Wants to be called {v}."),
}


def _date(rng: random.Random) -> dt.date:
    return dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(1100))


def _fill(rng: random.Random) -> dict[str, str]:
    d1, d2 = sorted((_date(rng), _date(rng)))
    return {
        "drink": rng.choice(EN_DRINKS), "drink2": rng.choice(EN_DRINKS),
        "drink_zh": rng.choice(ZH_DRINKS), "drink_zh2": rng.choice(ZH_DRINKS),
        "genre": rng.choice(EN_GENRES), "genre_zh": rng.choice(ZH_GENRES),
        "activity": rng.choice(EN_ACTIVITIES), "activity_zh": rng.choice(ZH_ACTIVITIES),
        "food": rng.choice(EN_FOODS), "food_zh": rng.choice(ZH_FOODS),
        "job": rng.choice(EN_JOBS), "job_zh": rng.choice(ZH_JOBS),
        "company": rng.choice(EN_COMPANIES), "company_zh": rng.choice(ZH_COMPANIES),
        "city": rng.choice(EN_CITIES), "city_zh": rng.choice(ZH_CITIES),
        "pet": rng.choice(EN_PETS), "pet_zh": rng.choice(ZH_PETS),
        "pet_name": rng.choice(PET_NAMES),
        "allergen": rng.choice(EN_ALLERGENS), "allergen_zh": rng.choice(ZH_ALLERGENS),
        "relative": rng.choice(EN_RELATIVES), "relative_zh": rng.choice(ZH_RELATIVES),
        "person": rng.choice(EN_PEOPLE), "person_zh": rng.choice(ZH_PEOPLE),
        "transport": rng.choice(EN_TRANSPORT), "transport_zh": rng.choice(ZH_TRANSPORT),
        "skill": rng.choice(EN_SKILLS), "skill_zh": rng.choice(ZH_SKILLS),
        "device": rng.choice(EN_DEVICES), "device2": rng.choice(EN_DEVICES),
        "appointment": rng.choice(EN_APPOINTMENTS),
        "appointment_zh": rng.choice(ZH_APPOINTMENTS),
        "event": rng.choice(EN_EVENT_KINDS), "event_zh": rng.choice(ZH_EVENT_KINDS),
        "project": rng.choice(EN_PROJECTS), "project_zh": rng.choice(ZH_PROJECTS),
        "tool": rng.choice(TOOLS), "task_zh": rng.choice(ZH_TASKS),
        "date": d1.isoformat(), "date2": d2.isoformat(),
        "date_zh": f"{d1.year}年{d1.month}月{d1.day}日",
        "date2_zh": f"{d2.year}年{d2.month}月{d2.day}日",
        "month_day": d1.strftime("%B %-d"), "month": str(d1.month), "day": str(d1.day),
        "hour": f"{rng.randrange(8, 19)}:{rng.choice(['00', '15', '30', '45'])}",
    }


# (language, kind, tag, template)
TEMPLATES: list[tuple[str, str, str, str]] = [
    ("en", "preference", "food", "Prefers {drink} over {drink2}, especially in the morning."),
    ("en", "preference", "music", "Likes {genre} and usually listens to it while {activity}."),
    ("en", "preference", "food", "Dislikes {food} and avoids restaurants that serve it."),
    ("en", "preference", "work", "Uses {tool} for most of their planning at work."),
    ("en", "fact", "work", "Works as a {job} at a {company} in {city}."),
    ("en", "fact", "home", "Has a {pet} named {pet_name}."),
    ("en", "fact", "health", "Is allergic to {allergen}."),
    ("en", "fact", "family", "Their {relative}'s name is {person}."),
    ("en", "fact", "home", "Lives in {city} and commutes by {transport}."),
    ("en", "fact", "hobby", "Is learning {skill} on weekends."),
    ("en", "fact", "work", "Uses a {device} for work and a {device2} at home."),
    ("en", "episode", "schedule", "Has a {appointment} appointment on {date} at {hour}."),
    ("en", "episode", "travel", "Flew to {city} on {date} for a {event}."),
    ("en", "episode", "work", "Started a new job as a {job} on {date}."),
    ("en", "episode", "family", "Their {relative}'s birthday is on {month_day}."),
    ("en", "episode", "work", "Finished the {project} project on {date}; the next review "
                              "is on {date2}."),
    ("zh", "preference", "food", "喜欢喝{drink_zh}，不太喜欢{drink_zh2}。"),
    ("zh", "preference", "music", "平时爱听{genre_zh}，尤其是在{activity_zh}的时候。"),
    ("zh", "preference", "food", "不吃{food_zh}，点餐时要避开。"),
    ("zh", "fact", "work", "在{city_zh}的一家{company_zh}做{job_zh}。"),
    ("zh", "fact", "home", "养了一只{pet_zh}，名字叫{pet_name}。"),
    ("zh", "fact", "health", "对{allergen_zh}过敏。"),
    ("zh", "fact", "family", "{relative_zh}叫{person_zh}。"),
    ("zh", "fact", "home", "住在{city_zh}，每天坐{transport_zh}上班。"),
    ("zh", "fact", "hobby", "周末在学{skill_zh}。"),
    ("zh", "episode", "schedule", "{date_zh}{hour}要去看{appointment_zh}。"),
    ("zh", "episode", "travel", "{date_zh}去{city_zh}参加{event_zh}。"),
    ("zh", "episode", "family", "{relative_zh}的生日是{month}月{day}日。"),
    ("zh", "episode", "work", "{date_zh}完成了{project_zh}项目，下次评审在{date2_zh}。"),
    ("mix", "preference", "work", "用 {tool} 来{task_zh}，觉得很顺手。"),
    ("mix", "episode", "work", "下周要 review {project} 的 PR，deadline 是 {date}。"),
    ("mix", "fact", "hobby", "最近在学 {skill}，每周上两次课。"),
]

# (language, template) of questions an assistant would ask its memory
QUERY_TEMPLATES: list[tuple[str, str]] = [
    ("en", "what does the user like to drink"),
    ("en", "which music does the user listen to while {activity}"),
    ("en", "what food should I avoid when booking a restaurant"),
    ("en", "what is the user allergic to"),
    ("en", "where does the user work and what is their job"),
    ("en", "when is the {appointment} appointment"),
    ("en", "what is the name of the user's {relative}"),
    ("en", "what format should reports be delivered in"),
    ("en", "how should I send notifications to the user"),
    ("en", "does the user have a pet"),
    ("en", "why did the user travel to {city}"),
    ("en", "what is the user learning on weekends"),
    ("en", "which theme and language does the user prefer"),
    ("en", "when is the next {project} review"),
    ("zh", "用户喜欢喝什么"),
    ("zh", "用户对什么过敏"),
    ("zh", "用户住在哪里，怎么上班"),
    ("zh", "{appointment_zh}是什么时候"),
    ("zh", "{relative_zh}叫什么名字"),
    ("zh", "报告用什么格式"),
    ("zh", "用户养了什么宠物"),
    ("zh", "用户在哪里工作"),
    ("zh", "去{city_zh}做什么"),
    ("zh", "周末在学什么"),
    ("zh", "不吃什么东西"),
    ("zh", "通知方式是什么"),
    ("mix", "{project} 的 PR deadline 是哪天"),
    ("mix", "用户用 {tool} 做什么"),
]


def scope_of(user: int) -> dict[str, str]:
    return {"tenant": f"t{user % 10:02d}", "user": f"u{user:05d}"}


def _slot_item(rng: random.Random, scope: dict[str, str], slot: str, value: Any) -> dict:
    template = SLOTS[slot][1]
    item: dict[str, Any] = {"scope": scope, "slot": slot, "value": value}
    if template is not None and rng.random() < 0.6:
        item["content"] = template.format(v=value)
    return item


def _free_item(rng: random.Random, scope: dict[str, str], seen: set[str]) -> dict:
    for _attempt in range(60):
        lang, kind, tag, template = rng.choice(TEMPLATES)
        content = template.format(**_fill(rng))
        if content.casefold() not in seen:
            break
    else:  # a tiny vocabulary for this user: make it unique rather than a noop
        content = f"{content} (#{len(seen)})"
    seen.add(content.casefold())
    item: dict[str, Any] = {"scope": scope, "content": content, "kind": kind, "tags": [tag]}
    r = rng.random()
    if r < 0.2:
        item["source"] = "system_inferred"
        item["confidence"] = round(rng.uniform(0.55, 0.95), 2)
    if rng.random() < 0.25:
        lead = rng.choice(LEADS_ZH if lang == "zh" else LEADS_EN)
        item["source_text"] = lead + content
    if rng.random() < 0.03:
        item["ttl"] = "365d"
    return item


def user_writes(rng: random.Random, user: int, rows: int) -> list[dict]:
    """One user's writes in order: `rows` distinct memories plus a few slot updates."""
    scope = scope_of(user)
    n_slots = min(len(SLOTS), round(0.07 * rows))
    n_rewrites = min(n_slots, round(0.03 * rows))
    slots = rng.sample(sorted(SLOTS), n_slots)
    current: dict[str, Any] = {}
    seen: set[str] = set()
    writes: list[dict] = [_free_item(rng, scope, seen) for _ in range(rows - n_slots)]
    for slot in slots:  # first values of the slots, at random positions
        value = rng.choice(SLOTS[slot][0])
        current[slot] = value
        writes.insert(rng.randrange(len(writes) + 1), _slot_item(rng, scope, slot, value))
    for slot in rng.sample(slots, n_rewrites):  # later: a new value of a known slot
        first = max(i for i, w in enumerate(writes) if w.get("slot") == slot)
        value = rng.choice([x for x in SLOTS[slot][0] if x != current[slot]])
        current[slot] = value
        writes.insert(rng.randrange(first + 1, len(writes) + 1),
                      _slot_item(rng, scope, slot, value))
    return writes


def make_workload(seed: int, memories: int, users: int,
                  first_user: int = 0) -> list[dict]:
    """All users' writes interleaved at random; each user's own order is kept."""
    rng = random.Random(seed)
    base, extra = divmod(memories, users)
    keyed: list[tuple[float, dict]] = []
    for u in range(users):
        writes = user_writes(rng, first_user + u, base + (1 if u < extra else 0))
        keys = sorted(rng.random() for _ in writes)
        keyed.extend(zip(keys, writes, strict=True))
    keyed.sort(key=lambda kw: kw[0])
    return [w for _, w in keyed]


def make_queries(seed: int, n: int, users: int) -> list[tuple[dict[str, str], str]]:
    rng = random.Random(seed + 1)
    out = []
    for _ in range(n):
        _lang, template = rng.choice(QUERY_TEMPLATES)
        out.append((scope_of(rng.randrange(users)), template.format(**_fill(rng))))
    return out


def _content_of(item: dict) -> str:
    """The text the vault embeds for an item (mirrors Vault._prepare's default)."""
    if item.get("content") is not None:
        return item["content"]
    value = item["value"]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"{item['slot']}: {text}"


# --------------------------------------------------------------------------------------
# Measurement helpers
# --------------------------------------------------------------------------------------


def pct(xs: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs, dtype=np.float64), q)) if xs else float("nan")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


@dataclass
class WriteStats:
    writes: int = 0
    wall: float = 0.0
    embed: float = 0.0
    tx: float = 0.0
    actions: Counter = field(default_factory=Counter)

    @property
    def other(self) -> float:
        return self.wall - self.embed - self.tx


@contextmanager
def instrumented(vault: Vault, stats: WriteStats,
                 vectors: Callable[[list[str]], list[dict[str, np.ndarray]]] | None = None
                 ) -> Iterator[None]:
    """Time the embedding call and every store transaction of `vault`, on the instance only.

    `vectors`, if given, replaces the embedding call (store-only replay)."""
    embed_fn = vectors or vault._vectors
    tx_fn = vault.store.transaction

    def timed_vectors(texts: list[str]) -> list[dict[str, np.ndarray]]:
        t = time.perf_counter()
        try:
            return embed_fn(texts)
        finally:
            stats.embed += time.perf_counter() - t

    @contextmanager
    def timed_tx() -> Iterator[Any]:
        t = time.perf_counter()
        try:
            with tx_fn() as tx:
                yield tx
        finally:
            stats.tx += time.perf_counter() - t

    vault._vectors = timed_vectors  # type: ignore[method-assign]
    vault.store.transaction = timed_tx  # type: ignore[method-assign]
    try:
        yield
    finally:
        del vault._vectors
        del vault.store.transaction


def run_writes(vault: Vault, items: list[dict], *, batch: int, chunk: int, label: str,
               vectors: Callable[[list[str]], list[dict[str, np.ndarray]]] | None = None,
               ) -> WriteStats:
    stats = WriteStats()
    chunk = max(batch, chunk - chunk % batch)  # whole batches per call
    last_report = time.perf_counter()
    with instrumented(vault, stats, vectors):
        for start in range(0, len(items), chunk):
            part = items[start:start + chunk]
            t = time.perf_counter()
            results = vault.remember_many(part, batch=batch, actor="bench")
            stats.wall += time.perf_counter() - t
            stats.writes += len(part)
            stats.actions.update(r.action for r in results)
            del results
            now = time.perf_counter()
            if now - last_report > 10 or stats.writes == len(items):
                last_report = now
                log(f"  {label}: {stats.writes:,}/{len(items):,} writes, "
                    f"{stats.writes / stats.wall:,.0f}/s (embed {stats.embed:.0f}s, "
                    f"transactions {stats.tx:.0f}s)")
    return stats


@dataclass
class RecallStats:
    e2e: list[float] = field(default_factory=list)
    no_embed: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    mismatches: int = 0
    hits: list[int] = field(default_factory=list)
    conversation: list[float] = field(default_factory=list)  # multi-line queries, e2e


CONVERSATION_LINES = 6
STORE_STAGES = ("text_candidates", "vector_candidates", "fetch")
STAGES = (*(f"store.{s}" for s in STORE_STAGES), "rest (validate, terms, scoring, rank)")


class CachedQueryEmbedder:
    """An embedder whose embed_query answers from precomputed vectors."""

    def __init__(self, inner: Any, cache: dict[str, np.ndarray]) -> None:
        self.inner = inner
        self.name = inner.name
        # Which queries the model may score (embed.votes_on) must not change in the replay.
        self.reads_cjk = getattr(inner, "reads_cjk", True)
        self.cache = cache
        self.misses = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        vec = self.cache.get(text)
        if vec is None:
            self.misses += 1
            vec = self.cache[text] = self.inner.embed_query(text)
        return vec


@contextmanager
def without_query_embedding(vault: Vault, caches: dict[str, dict[str, np.ndarray]],
                            sink: dict[str, float]) -> Iterator[None]:
    """Inside: vault.recall takes query vectors from `caches`, and the time spent in each
    store call it makes is added to `sink`. Instance attributes only; restored after."""
    embedders = vault.embedders
    store = vault.store

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                sink[name] = sink.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    vault.embedders = [CachedQueryEmbedder(e, caches[e.name]) for e in embedders]
    for name in STORE_STAGES:
        setattr(store, name, timed(f"store.{name}", getattr(store, name)))
    try:
        yield
    finally:
        vault.embedders = embedders
        for name in STORE_STAGES:
            delattr(store, name)


def _same_hits(a: list[Any], b: list[Any]) -> bool:
    return (len(a) == len(b)
            and all(x.memory.id == y.memory.id and abs(x.score - y.score) < 1e-5
                    for x, y in zip(a, b, strict=True)))


def run_recall(vault: Vault, queries: list[tuple[dict[str, str], str]],
               warmup: list[tuple[dict[str, str], str]]) -> RecallStats:
    """Each query runs twice, alternately first: vault.recall as is, and vault.recall with
    the query vectors precomputed (the only difference: embed_query is a dict lookup)."""
    st = RecallStats()
    for sc, q in warmup:
        vault.recall(sc, q, top_k=TOP_K)
    caches: dict[str, dict[str, np.ndarray]] = {e.name: {} for e in vault.embedders}
    for _sc, q in queries:  # query embedding on its own
        t = time.perf_counter()
        for e in vault.embedders:
            caches[e.name][q] = e.embed_query(q)
        st.embed.append(time.perf_counter() - t)
    for i, (sc, q) in enumerate(queries):
        def e2e(sc: dict[str, str] = sc, q: str = q) -> list[Any]:
            t = time.perf_counter()
            hits = vault.recall(sc, q, top_k=TOP_K)
            st.e2e.append(time.perf_counter() - t)
            return hits

        def pre(sc: dict[str, str] = sc, q: str = q) -> list[Any]:
            sink: dict[str, float] = {}
            with without_query_embedding(vault, caches, sink):
                t = time.perf_counter()
                hits = vault.recall(sc, q, top_k=TOP_K)
                total = time.perf_counter() - t
            st.no_embed.append(total)
            for name in STAGES[:-1]:
                st.stages.setdefault(name, []).append(sink.get(name, 0.0))
            st.stages.setdefault(STAGES[-1], []).append(total - sum(sink.values()))
            return hits

        if i % 2:
            b, a = pre(), e2e()
        else:
            a, b = e2e(), pre()
        st.hits.append(len(a))
        st.mismatches += not _same_hits(a, b)
        if (i + 1) % 100 == 0:
            log(f"  recall: {i + 1}/{len(queries)}")
    # A conversation excerpt as the query (line votes: one vector search per line).
    for i in range(0, len(queries) - CONVERSATION_LINES + 1, CONVERSATION_LINES):
        group = queries[i:i + CONVERSATION_LINES]
        text = "\n".join(f"{'User' if j % 2 == 0 else 'Assistant'}: {q}"
                         for j, (_sc, q) in enumerate(group))
        t = time.perf_counter()
        vault.recall(group[0][0], text, top_k=TOP_K)
        st.conversation.append(time.perf_counter() - t)
    return st


def run_single(vault: Vault, seed: int, n: int, users: int) -> tuple[list[float], Counter]:
    rng = random.Random(seed + 2)
    lat: list[float] = []
    actions: Counter = Counter()
    for i in range(n):
        user = rng.randrange(users)
        scope = scope_of(user)
        if rng.random() < 0.3:
            slot = rng.choice(sorted(SLOTS))
            item = _slot_item(rng, scope, slot, rng.choice(SLOTS[slot][0]))
        else:
            item = _free_item(rng, scope, set())
            item["content"] = f"{item['content']} (single {i})"  # new, not a duplicate
        item.pop("scope")
        t = time.perf_counter()
        res = vault.remember(scope, **item)
        lat.append(time.perf_counter() - t)
        actions[res.action] += 1
    return lat, actions


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _mem_total() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _fs_of(path: Path) -> str:
    try:
        best = ("", "?")
        target = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            mnt, fstype = parts[1], parts[2]
            if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) \
                    and len(mnt) > len(best[0]):
                best = (mnt, fstype)
        return f"{best[1]} ({best[0]})"
    except (OSError, IndexError):
        return "unknown"


def _git_rev() -> str:
    import memvault

    imported = Path(memvault.__file__).resolve().parent
    if not imported.is_relative_to(PROJECT_ROOT):
        return f"imported from {imported} (not this checkout)"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT_ROOT,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=PROJECT_ROOT,
                               capture_output=True, text=True, timeout=10).stdout.splitlines()
        return f"{rev}" + (f" + {len(dirty)} uncommitted file(s) in src/" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _src_hash() -> str:
    """Short hash of the memvault sources measured (others may be editing them)."""
    import hashlib

    import memvault

    root = Path(memvault.__file__).parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def _blas_threads() -> str:
    """BLAS library and its thread count, without requiring threadpoolctl."""
    env = ", ".join(f"{k}={os.environ[k]}" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                     "MKL_NUM_THREADS") if k in os.environ)
    env = f"; env {env}" if env else ""
    try:
        import threadpoolctl

        info = threadpoolctl.threadpool_info()
        if info:
            return ", ".join(f"{p['internal_api']} {p['version']} ({p['num_threads']} threads)"
                             for p in info) + env
    except ImportError:
        pass
    import ctypes

    libs = Path(np.__file__).parent.parent / "numpy.libs"
    for lib in sorted(libs.glob("*openblas*")):
        handle = ctypes.CDLL(str(lib))
        for sym in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                    "openblas_get_num_threads"):
            fn = getattr(handle, sym, None)
            if fn is not None:
                return f"OpenBLAS ({fn()} threads; threadpoolctl not installed){env}"
    return f"unknown{env}"


def machine_info(db: Path, vault: Vault, src_hash: str) -> list[tuple[str, str]]:
    import sqlean

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return [
        ("CPU", f"{_cpu_model()}; nproc {os.cpu_count()}"
                + (f", usable {affinity}" if affinity is not None else "")),
        ("memory", _mem_total()),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("sqlite (sqlean)", sqlean.sqlite_version),
        ("numpy / BLAS", f"{np.__version__} / {_blas_threads()}"),
        ("embedder", vault.embedding_model),
        ("memvault", f"{_git_rev()}; sources sha256 {src_hash}"),
        ("db filesystem", _fs_of(db.parent)),
        ("platform", platform.platform()),
    ]


def file_sizes(db: Path) -> dict[str, int]:
    return {suffix or "db": (Path(str(db) + suffix).stat().st_size
                             if Path(str(db) + suffix).exists() else 0)
            for suffix in ("", "-wal", "-shm")}


def table_sizes(vault: Vault) -> list[tuple[str, int]]:
    """Bytes per table (indexes and FTS shadow tables folded into their owner)."""
    try:
        rows = vault.store._q("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
        owners = {r[0]: r[1] for r in vault.store._q(
            "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")}
    except Exception:  # dbstat not compiled in
        return []
    out: Counter = Counter()
    for name, size in rows:
        owner = owners.get(name, name)
        if owner.startswith("memories_fts"):
            owner = "memories_fts (FTS5)"
        out[owner] += int(size)
    return out.most_common()


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def build_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(metric, value, note) rows of the result table."""
    b: WriteStats = r["build"]
    s: WriteStats | None = r.get("store")
    rc: RecallStats = r["recall"]
    sizes = r["sizes"]
    rows = [
        ("memories (rows after build)", f"{r['rows']:,}",
         f"{r['users']:,} users; {b.writes:,} writes: "
         + ", ".join(f"{k} {v:,}" for k, v in sorted(b.actions.items()))),
        ("revisions / FTS rows / vectors", f"{r['revisions']:,} / {r['fts_rows']:,} / "
         f"{r['vectors']:,}", ""),
        ("writes/s, with embedding (batch)", f"{b.writes / b.wall:,.0f}",
         f"remember_many batch={r['batch']}; {b.wall:,.1f} s for {b.writes:,} writes"),
        ("  of which embedding", f"{b.embed:,.1f} s ({b.embed / b.wall:.0%})",
         f"{b.embed / b.writes * 1000:.2f} ms/write; {b.writes / b.embed:,.0f} texts/s"),
        ("  of which store transactions", f"{b.tx:,.1f} s ({b.tx / b.wall:.0%})",
         f"{b.tx / b.writes * 1000:.2f} ms/write (rows, FTS, vectors, revisions, COMMIT)"),
        ("  of which other (_prepare, ...)", f"{b.other:,.1f} s ({b.other / b.wall:.0%})",
         f"{b.other / b.writes * 1000:.2f} ms/write"),
        ("writes/s, store only (in-run)", f"{b.writes / (b.wall - b.embed):,.0f}",
         "same build, embedding time subtracted"),
    ]
    if s is not None and s.writes:
        rows.append(("writes/s, store only (replay)", f"{s.writes / s.wall:,.0f}",
                     f"{s.writes:,} writes for {r['store_users']} new users, vectors "
                     f"precomputed; tx {s.tx / s.writes * 1000:.2f} ms/write"))
    if r["single"]:
        lat = r["single"]
        rows.append(("single remember() p50 / p95 / p99 ms",
                     f"{ms(pct(lat, 50))} / {ms(pct(lat, 95))} / {ms(pct(lat, 99))}",
                     f"{len(lat)} calls (" + ", ".join(
                         f"{k} {v}" for k, v in sorted(r["single_actions"].items()))
                     + "); embed 1 text + COMMIT (synchronous=FULL)"))
    rows += [
        ("recall p50 / p95 / p99 ms, with query embedding",
         f"{ms(pct(rc.e2e, 50))} / {ms(pct(rc.e2e, 95))} / {ms(pct(rc.e2e, 99))}",
         f"vault.recall top_k={TOP_K}, {len(rc.e2e)} queries, mean "
         f"{np.mean(rc.hits):.1f} hits"),
        ("recall p50 / p95 / p99 ms, without query embedding",
         f"{ms(pct(rc.no_embed, 50))} / {ms(pct(rc.no_embed, 95))} / "
         f"{ms(pct(rc.no_embed, 99))}",
         f"same queries, query vectors precomputed; top-10 identical to the run with "
         f"embedding for {len(rc.e2e) - rc.mismatches}/{len(rc.e2e)}"),
        (f"recall p50 / p95 / p99 ms, {CONVERSATION_LINES}-line conversation query",
         f"{ms(pct(rc.conversation, 50))} / {ms(pct(rc.conversation, 95))} / "
         f"{ms(pct(rc.conversation, 99))}",
         f"{len(rc.conversation)} queries of {CONVERSATION_LINES} of the queries above as "
         "User/Assistant lines: line votes embed and search each line"),
        ("  query embedding alone p50 / p95 / p99 ms",
         f"{ms(pct(rc.embed, 50))} / {ms(pct(rc.embed, 95))} / {ms(pct(rc.embed, 99))}",
         "embed_query of each embedder"),
    ]
    for name in STAGES:
        xs = rc.stages.get(name, [])
        rows.append((f"  {name} p50 / p95 ms", f"{ms(pct(xs, 50))} / {ms(pct(xs, 95))}",
                     "in the run without query embedding"))
    total = sum(sizes.values())
    rows += [
        ("db file size", mib(total),
         f"db {mib(sizes['db'])} + wal {mib(sizes['-wal'])} + shm {mib(sizes['-shm'])}; "
         f"{total / max(r['rows'], 1):,.0f} B/memory"),
    ]
    for name, size in r["tables"]:
        if size < total / 1000:  # schema, meta, ...
            continue
        rows.append((f"  {name}", mib(size), f"{size / max(r['rows'], 1):,.0f} B/memory"))
    rows += [
        ("peak RSS", f"{r['peak_rss']:,.0f} MiB",
         f"before build (model + workload): {r['rss_before_build']:,.0f} MiB; "
         f"after build {r['rss_after_build']:,.0f}; after recall "
         f"{r['rss_after_recall']:,.0f}"),
        ("total wall time", f"{r['wall']:,.1f} s",
         f"data gen {r['t_gen']:.1f} s, model load {r['t_load']:.1f} s"),
        ("load average (start -> end)", r["loadavg"], "other processes on the machine"),
    ]
    return rows


def target_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    b: WriteStats = r["build"]
    p95 = pct(r["recall"].e2e, 95) * 1000
    wps = b.writes / b.wall
    return [
        (f"TARGET recall p95 <= {TARGET_RECALL_P95_MS:g} ms incl. query embedding",
         f"{p95:.1f} ms", "PASS" if p95 <= TARGET_RECALL_P95_MS else "FAIL"),
        (f"TARGET >= {TARGET_WRITES_PER_S:g} writes/s incl. embedding, batch",
         f"{wps:,.0f}/s", "PASS" if wps >= TARGET_WRITES_PER_S else "FAIL"),
    ]


def markdown(r: dict[str, Any]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = ["# memvault core benchmark", "",
             f"`{r['command']}`  ", f"{r['date']}", "",
             "| metric | value | note |", "|---|---:|---|"]
    lines += [f"| {esc(a)} | {esc(b)} | {esc(c)} |" for a, b, c in build_rows(r)]
    lines += ["", "| target | measured | result |", "|---|---:|---|"]
    lines += [f"| {esc(a)} | {esc(b)} | **{c}** |" for a, b, c in target_rows(r)]
    lines += ["", "| machine | |", "|---|---|"]
    lines += [f"| {esc(a)} | {esc(b)} |" for a, b in r["machine"]]
    return "\n".join(lines) + "\n"


def print_report(r: dict[str, Any], plain: bool) -> None:
    if plain:
        print(markdown(r))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title=f"memvault core benchmark — {r['command']}", title_justify="left")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("note", overflow="fold")
    for a, b, c in build_rows(r):
        t.add_row(a, b, c)
    console.print(t)
    tt = Table(title="targets (issue)", title_justify="left")
    tt.add_column("target")
    tt.add_column("measured", justify="right")
    tt.add_column("result")
    for a, b, c in target_rows(r):
        tt.add_row(a, b, f"[bold {'green' if c == 'PASS' else 'red'}]{c}[/]")
    console.print(tt)
    mt = Table(title="machine", title_justify="left", show_header=False)
    mt.add_column()
    mt.add_column(overflow="fold")
    for a, b in r["machine"]:
        mt.add_row(a, b)
    console.print(mt)


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=100_000, help="memory rows to build")
    p.add_argument("--users", type=int, default=1_000)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--warmup", type=int, default=20, help="unmeasured recalls first")
    p.add_argument("--single", type=int, default=200, help="plain remember() calls to time")
    p.add_argument("--store-sample", type=int, default=5_000,
                   help="writes of the store-only replay (0 to skip)")
    p.add_argument("--batch", type=int, default=256, help="remember_many batch size")
    p.add_argument("--chunk", type=int, default=10_240,
                   help="items per remember_many call (a multiple of --batch)")
    p.add_argument("--embedder", default=None, help="embedder spec (default: memvault's)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--db", type=Path, help="SQLite file to create and keep (must not exist)")
    p.add_argument("--out", type=Path, help="also write the tables as markdown here")
    p.add_argument("--plain", action="store_true", help="print markdown, not rich tables")
    args = p.parse_args(argv)
    if args.memories < args.users or args.users < 1:
        p.error("need --users >= 1 and --memories >= --users")

    t_start = time.perf_counter()
    src_hash = _src_hash()  # now: the code imported above, if src/ is being edited
    load_start = os.getloadavg()
    tmpdir: Path | None = None
    if args.db is not None:
        if args.db.exists():
            p.error(f"--db {args.db} exists; give a new path (the benchmark builds it)")
        db = args.db
    else:
        tmpdir = Path(tempfile.mkdtemp(prefix="memvault-bench-"))
        db = tmpdir / "bench.db"
    if load_start[0] > 0.5:
        log(f"warning: load average {load_start[0]:.2f} at start; other processes compete "
            "for the CPU and will inflate the numbers")

    try:
        r: dict[str, Any] = {"users": args.users, "batch": args.batch,
                             "command": "python benchmarks/core.py "
                                        + " ".join(argv if argv is not None else sys.argv[1:]),
                             "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
        log(f"generating workload: {args.memories:,} memories, {args.users:,} users ...")
        t = time.perf_counter()
        items = make_workload(args.seed, args.memories, args.users)
        queries = make_queries(args.seed, args.queries + args.warmup, args.users)
        warmup, queries = queries[:args.warmup], queries[args.warmup:]
        r["t_gen"] = time.perf_counter() - t
        log(f"  {len(items):,} writes in {r['t_gen']:.1f} s")

        log("loading embedder ...")
        t = time.perf_counter()
        vault = Vault(db, embedder=args.embedder, actor="bench")
        for e in vault.embedders:  # load weights and warm up (BLAS, tokenizer)
            e.embed_documents(["warm up 预热", "a second sentence", "第三句话"] * 8)
            e.embed_query("warm up")
        index_text("结巴分词预热 warm up")  # jieba loads its dictionary on first use
        r["t_load"] = time.perf_counter() - t
        r["machine"] = machine_info(db, vault, src_hash)
        gc.collect()
        r["rss_before_build"] = peak_rss_mib()

        log(f"build: remember_many, batch {args.batch} ...")
        r["build"] = run_writes(vault, items, batch=args.batch, chunk=args.chunk,
                                label="build")
        r["rss_after_build"] = peak_rss_mib()
        r["rows"] = vault.store.count()
        r["revisions"] = vault.store._q("SELECT COUNT(*) FROM revisions")[0][0]
        r["fts_rows"] = vault.store._q("SELECT COUNT(*) FROM memories_fts")[0][0]
        r["vectors"] = vault.store._q("SELECT COUNT(*) FROM vectors")[0][0]
        r["sizes"] = file_sizes(db)
        r["tables"] = table_sizes(vault)
        del items
        gc.collect()

        log(f"recall: {len(queries)} queries (+{len(warmup)} warm-up) ...")
        r["recall"] = run_recall(vault, queries, warmup)
        r["rss_after_recall"] = peak_rss_mib()

        r["single"], r["single_actions"] = [], Counter()
        if args.single:
            log(f"single remember(): {args.single} calls ...")
            r["single"], r["single_actions"] = run_single(vault, args.seed, args.single,
                                                          args.users)

        if args.store_sample:
            n_users = max(1, round(args.store_sample / (args.memories / args.users)))
            r["store_users"] = n_users
            sample = make_workload(args.seed + 3, args.store_sample, n_users,
                                   first_user=args.users + 1_000_000)
            log(f"store-only replay: embedding {len(sample):,} texts first ...")
            texts = sorted({_content_of(it) for it in sample})
            cache = dict(zip(texts, vault._vectors(texts), strict=True))
            misses = 0

            def lookup(batch: list[str]) -> list[dict[str, np.ndarray]]:
                nonlocal misses
                out = []
                for text in batch:
                    if text not in cache:  # _prepare derived another text: embed it
                        misses += 1
                        cache[text] = vault._vectors([text])[0]
                    out.append(cache[text])
                return out

            r["store"] = run_writes(vault, sample, batch=args.batch, chunk=args.chunk,
                                    label="store-only", vectors=lookup)
            if misses:
                log(f"warning: {misses} texts were not precomputed (embedded inline)")

        vault.close()
        r["peak_rss"] = peak_rss_mib()
        r["wall"] = time.perf_counter() - t_start
        load_end = os.getloadavg()
        r["loadavg"] = f"{load_start[0]:.2f} -> {load_end[0]:.2f}"
        print_report(r, args.plain)
        if args.out:
            args.out.write_text(markdown(r), encoding="utf-8")
            log(f"wrote {args.out}")
        if r["recall"].mismatches:
            log(f"warning: {r['recall'].mismatches} queries ranked differently in the replay "
                "than in vault.recall; the replay no longer mirrors src")
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
