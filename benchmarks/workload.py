"""The core benchmark's synthetic workload: users' writes and the questions asked of them.

Deterministic for a seed. Per user ~100 memories from English, Chinese and mixed
templates (preferences, facts, dated events), ~7% slot writes plus ~3% re-writes of a slot
the user already has (updates). Also used by scale.py.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

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


def slot_item(rng: random.Random, scope: dict[str, str], slot: str, value: Any) -> dict:
    template = SLOTS[slot][1]
    item: dict[str, Any] = {"scope": scope, "slot": slot, "value": value}
    if template is not None and rng.random() < 0.6:
        item["content"] = template.format(v=value)
    return item


def free_item(rng: random.Random, scope: dict[str, str], seen: set[str]) -> dict:
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
    writes: list[dict] = [free_item(rng, scope, seen) for _ in range(rows - n_slots)]
    for slot in slots:  # first values of the slots, at random positions
        value = rng.choice(SLOTS[slot][0])
        current[slot] = value
        writes.insert(rng.randrange(len(writes) + 1), slot_item(rng, scope, slot, value))
    for slot in rng.sample(slots, n_rewrites):  # later: a new value of a known slot
        first = max(i for i, w in enumerate(writes) if w.get("slot") == slot)
        value = rng.choice([x for x in SLOTS[slot][0] if x != current[slot]])
        current[slot] = value
        writes.insert(rng.randrange(first + 1, len(writes) + 1),
                      slot_item(rng, scope, slot, value))
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


def content_of(item: dict) -> str:
    """The text the vault embeds for an item (mirrors Vault._prepare's default)."""
    if item.get("content") is not None:
        return item["content"]
    value = item["value"]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"{item['slot']}: {text}"
