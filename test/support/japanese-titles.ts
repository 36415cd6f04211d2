// Titles of Japanese livestreams as archives hold them, made from parts (deterministic): brackets
// 【】, karaoke (歌枠), chatting (雑談), collabs, members-only streams, birthdays, games in
// katakana, emoji, #hashtags, English mixed in, and a few Chinese and Korean ones.

const TAGS = [
  '【歌枠】',
  '【雑談】',
  '【#コラボ】',
  '【メン限】',
  '【誕生日】',
  '【初見歓迎】',
  '【3D LIVE】',
  '【耐久】',
  '【ASMR】',
  '【Members Only】',
  '【朝活】',
  '【告知あり】',
];
const PHRASES = [
  'まったり配信',
  'まったり雑談',
  '歌枠',
  'カラオケ',
  '歌ってみた',
  '雑談配信',
  'コラボ配信',
  'メンバー限定',
  '誕生日ライブ',
  '誕生日記念',
  '新衣装お披露目',
  '深夜のまったり雑談',
  '初見さん歓迎',
  '同時視聴',
  '記念配信',
  '耐久配信',
  'ゲーム実況',
  'お絵かき配信',
  '作業用',
  '晩酌雑談',
  'ライブ配信',
  '生放送',
  'リスナーさんと',
  '久しぶりの',
  'みんなで遊ぶ',
  '朝まで',
  'ソロライブ',
  '周年記念',
  'おはよう',
  'おやすみ前に',
];
const GAMES = [
  'マインクラフト',
  'マイクラ',
  'ポケモン',
  'スプラトゥーン3',
  'モンハン',
  'エーペックス',
  'マリオカート',
  'ゼルダの伝説',
  'バイオハザード',
  'ストリートファイター6',
  '原神',
  '桃鉄',
  'スイカゲーム',
  'ファイナルファンタジー',
  'ドラゴンクエスト',
  'APEX',
  'Minecraft',
  'VALORANT',
];
const ENDINGS = ['', 'するよ！', 'しよう', 'やります', 'です', '！！', '♪', 'ｶﾗｵｹ', 'してく', 'がんばる', 'part2', '#2', '初見プレイ', 'ランク'];
const EMOJI = ['', '', '🎤', '🎮', '🎂', '✨', '🌙', '💤', '🍰', '☕', '🎉'];
const HASHTAGS = ['', '', '#ホロライブ', '#にじさんじ', '#新人Vtuber', '#歌枠', '#karaoke', '#vtuber', '#雑談', '#コラボ'];
const ENGLISH = ['', '', 'karaoke', 'singing stream', 'collab', 'chill chat', 'first time', 'birthday', 'members', 'with friends', 'LIVE'];
const FAMILY = ['星乃', '月城', '桜井', '白銀', '夜空', '天音', '猫宮', '雪花', '紫咲', '兎田', '宝鐘', '獅白'];
const GIVEN = ['みこ', 'すい', 'あかり', 'ノエル', 'ルナ', 'ぺこら', 'マリン', 'かなた', 'ココ', 'ラミィ', 'ねね', 'ぼたん'];
const CHANNEL_SUFFIX = [' Ch.', 'チャンネル', ' / Hololive', '【公式】', ' Official', ''];
const CHINESE = ['【直播】唱歌聊天', '今天一起玩游戏', '生日快乐直播', '深夜杂谈', '新衣装公开'];
const KOREAN = ['노래 방송', '게임 방송을 합니다', '생일 축하 방송', '잡담 방송입니다', '마인크래프트 같이 해요'];

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

export interface JapaneseTitles {
  title(n: number): string;
  channelName(channel: number): string;
}

/** Deterministic title `n` and channel name `channel`, from `seed`. */
export function japaneseTitles(seed = 7): JapaneseTitles {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(list.length * next())] as T;
  return {
    title(n) {
      if (n % 25 === 3) return `${pick(CHINESE)} ${pick(EMOJI)}`.trim();
      if (n % 25 === 7) return `${pick(KOREAN)} ${pick(HASHTAGS)}`.trim();
      const parts = [pick(TAGS), next() < 0.5 ? pick(GAMES) + pick(ENDINGS) : '', pick(PHRASES), next() < 0.5 ? pick(PHRASES) : '', pick(EMOJI)];
      // some titles run their parts together, as many do; others space them
      const body = next() < 0.5 ? parts.join('') : parts.filter((p) => p !== '').join(' ');
      return [body, pick(ENGLISH), pick(HASHTAGS)].filter((p) => p !== '').join(' ');
    },
    channelName(channel) {
      return `${FAMILY[channel % FAMILY.length]}${GIVEN[Math.floor(channel / FAMILY.length) % GIVEN.length]}${CHANNEL_SUFFIX[channel % CHANNEL_SUFFIX.length]}`;
    },
  };
}
