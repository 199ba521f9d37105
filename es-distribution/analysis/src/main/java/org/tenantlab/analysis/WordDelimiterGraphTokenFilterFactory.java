package org.tenantlab.analysis;

import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterIterator;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.Analysis;
import org.elasticsearch.index.analysis.TokenFilterFactory;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter.*;

/**
 * `word_delimiter_graph` filter with analysis-common's settings and defaults: generate_word_parts,
 * generate_number_parts, split_on_case_change, split_on_numerics, stem_english_possessive,
 * adjust_offsets (true); catenate_words, catenate_numbers, catenate_all, preserve_original,
 * ignore_keywords (false); protected_words(_path), type_table(_path) ("$ => DIGIT").
 */
final class WordDelimiterGraphTokenFilterFactory extends AbstractTokenFilterFactory {

    private static final Pattern TYPE_RULE = Pattern.compile("(.*)\\s*=>\\s*(.*)\\s*$");

    private final byte[] typeTable;
    private final int flags;
    private final CharArraySet protectedWords;
    private final boolean adjustOffsets;

    WordDelimiterGraphTokenFilterFactory(IndexSettings indexSettings, Environment env, String name, Settings settings) {
        super(name);
        List<String> types = Analysis.getWordList(env, settings, "type_table");
        this.typeTable = types == null ? WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE : parseTypes(types);
        int f = 0;
        f |= flag(settings, "generate_word_parts", true, GENERATE_WORD_PARTS);
        f |= flag(settings, "generate_number_parts", true, GENERATE_NUMBER_PARTS);
        f |= flag(settings, "catenate_words", false, CATENATE_WORDS);
        f |= flag(settings, "catenate_numbers", false, CATENATE_NUMBERS);
        f |= flag(settings, "catenate_all", false, CATENATE_ALL);
        f |= flag(settings, "split_on_case_change", true, SPLIT_ON_CASE_CHANGE);
        f |= flag(settings, "preserve_original", false, PRESERVE_ORIGINAL);
        f |= flag(settings, "split_on_numerics", true, SPLIT_ON_NUMERICS);
        f |= flag(settings, "stem_english_possessive", true, STEM_ENGLISH_POSSESSIVE);
        f |= flag(settings, "ignore_keywords", false, IGNORE_KEYWORDS);
        this.flags = f;
        Set<?> words = Analysis.getWordSet(env, settings, "protected_words");
        this.protectedWords = words == null ? null : CharArraySet.copy(words);
        this.adjustOffsets = settings.getAsBoolean("adjust_offsets", true);
    }

    private static int flag(Settings settings, String key, boolean byDefault, int bit) {
        return settings.getAsBoolean(key, byDefault) ? bit : 0;
    }

    @Override
    public TokenStream create(TokenStream in) {
        return new WordDelimiterGraphFilter(in, adjustOffsets, typeTable, flags, protectedWords);
    }

    @Override
    public TokenFilterFactory getSynonymFilter() {
        throw new IllegalArgumentException("Token filter [" + name() + "] cannot be used to parse synonyms");
    }

    /** Lines "c => TYPE" (the character types are the older WordDelimiterFilter's, shared by the graph filter) (c a character or \\uXXXX) over the default table. */
    static byte[] parseTypes(List<String> rules) {
        SortedMap<Character, Byte> map = new TreeMap<>();
        for (String rule : rules) {
            Matcher m = TYPE_RULE.matcher(rule);
            if (!m.find()) {
                throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]");
            }
            String lhs = unescape(m.group(1).trim());
            if (lhs.length() != 1) {
                throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]. Only a single character is allowed.");
            }
            map.put(lhs.charAt(0), type(m.group(2).trim(), rule));
        }
        int size = Math.max(map.isEmpty() ? 0 : map.lastKey() + 1, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE.length);
        byte[] table = new byte[size];
        System.arraycopy(WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE, 0, table, 0, WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE.length);
        map.forEach((c, t) -> table[c] = t);
        return table;
    }

    private static byte type(String s, String rule) {
        return switch (s) {
            case "LOWER" -> (byte) WordDelimiterFilter.LOWER;
            case "UPPER" -> (byte) WordDelimiterFilter.UPPER;
            case "ALPHA" -> (byte) WordDelimiterFilter.ALPHA;
            case "DIGIT" -> (byte) WordDelimiterFilter.DIGIT;
            case "ALPHANUM" -> (byte) WordDelimiterFilter.ALPHANUM;
            case "SUBWORD_DELIM" -> (byte) WordDelimiterFilter.SUBWORD_DELIM;
            default -> throw new IllegalArgumentException("Invalid Mapping Rule : [" + rule + "]. Unknown type [" + s + "]");
        };
    }

    private static String unescape(String s) {
        if (s.startsWith("\\u") && s.length() == 6) {
            return String.valueOf((char) Integer.parseInt(s.substring(2), 16));
        }
        return s.startsWith("\\") && s.length() == 2 ? s.substring(1) : s;
    }
}
