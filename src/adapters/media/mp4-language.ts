/**
 * ISO 639-1 codes and their ISO 639-2/T codes (the iso-codes project's table), five letters each:
 * `en` + `eng`. HLS names a rendition's language as BCP 47 does (`en`, `pt-BR`); an MP4 track's
 * language is a three-letter ISO 639-2 code, and ffmpeg's MP4 muxer drops any other.
 */
const ISO_639_1_TO_2 = [
  'aaaar ababk aeave afafr akaka amamh anarg arara asasm avava ayaym azaze babak bebel bgbul bhbih ',
  'bibis bmbam bnben bobod brbre bsbos cacat ceche chcha cocos crcre csces cuchu cvchv cycym dadan ',
  'dedeu dvdiv dzdzo eeewe elell eneng eoepo esspa etest eueus fafas ffful fifin fjfij fofao frfra ',
  'fyfry gagle gdgla glglg gngrn guguj gvglv hahau heheb hihin hohmo hrhrv hthat huhun hyhye hzher ',
  'iaina idind ieile igibo iiiii ikipk ioido isisl itita iuiku jajpn jvjav kakat kgkon kikik kjkua ',
  'kkkaz klkal kmkhm knkan kokor krkau kskas kukur kvkom kwcor kykir lalat lbltz lglug lilim lnlin ',
  'lolao ltlit lulub lvlav mgmlg mhmah mimri mkmkd mlmal mnmon mrmar msmsa mtmlt mymya nanau nbnob ',
  'ndnde nenep ngndo nlnld nnnno nonor nrnbl nvnav nynya ococi ojoji omorm orori ososs papan pipli ',
  'plpol pspus ptpor quque rmroh rnrun roron rurus rwkin sasan scsrd sdsnd sesme sgsag sisin skslk ',
  'slslv smsmo snsna sosom sqsqi srsrp ssssw stsot susun svswe swswa tatam tetel tgtgk ththa titir ',
  'tktuk tltgl tntsn toton trtur tstso tttat twtwi tytah uguig ukukr ururd uzuzb veven vivie vovol ',
  'wawln wowol xhxho yiyid yoyor zazha zhzho zuzul ',
]
  .join('')
  .trim()
  .split(' ');
const ISO_639_2 = new Map(ISO_639_1_TO_2.map((pair) => [pair.slice(0, 2), pair.slice(2)]));

/** A BCP 47 language tag as an MP4 track names it (`pt-BR` → `por`, `eng` as it is); null when it names no ISO 639 language. */
export function mp4Language(tag: string | null): string | null {
  const primary = tag?.split('-')[0]?.toLowerCase() ?? '';
  if (/^[a-z]{3}$/.test(primary)) return primary;
  return ISO_639_2.get(primary) ?? null;
}
