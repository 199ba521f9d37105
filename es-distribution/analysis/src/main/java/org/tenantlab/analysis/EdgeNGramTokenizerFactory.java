package org.tenantlab.analysis;

import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenizer;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractTokenizerFactory;

import java.util.function.IntPredicate;

/** `edge_ngram` tokenizer: min_gram (1), max_gram (2), token_chars, custom_token_chars. */
final class EdgeNGramTokenizerFactory extends AbstractTokenizerFactory {

    /** analysis-common's defaults (Lucene's own tokenizer defaults to 1 and 1). */
    static final int DEFAULT_MIN_GRAM = 1;
    static final int DEFAULT_MAX_GRAM = 2;

    private final int minGram;
    private final int maxGram;
    private final IntPredicate tokenChars;

    EdgeNGramTokenizerFactory(IndexSettings indexSettings, Environment env, String name, Settings settings) {
        super(name);
        this.minGram = settings.getAsInt("min_gram", DEFAULT_MIN_GRAM);
        this.maxGram = settings.getAsInt("max_gram", DEFAULT_MAX_GRAM);
        this.tokenChars = TokenChars.parse(settings);
    }

    @Override
    public Tokenizer create() {
        if (tokenChars == null) {
            return new EdgeNGramTokenizer(minGram, maxGram);
        }
        IntPredicate chars = tokenChars;
        return new EdgeNGramTokenizer(minGram, maxGram) {
            @Override
            protected boolean isTokenChar(int c) {
                return chars.test(c);
            }
        };
    }
}
