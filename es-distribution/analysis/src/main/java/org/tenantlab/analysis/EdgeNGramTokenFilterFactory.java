package org.tenantlab.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenFilter;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.TokenFilterFactory;

/** `edge_ngram` filter: min_gram (1), max_gram (2), preserve_original (false). */
final class EdgeNGramTokenFilterFactory extends AbstractTokenFilterFactory {

    private final int minGram;
    private final int maxGram;
    private final boolean preserveOriginal;

    EdgeNGramTokenFilterFactory(IndexSettings indexSettings, Environment env, String name, Settings settings) {
        super(name);
        this.minGram = settings.getAsInt("min_gram", 1);
        this.maxGram = settings.getAsInt("max_gram", 2);
        this.preserveOriginal = settings.getAsBoolean("preserve_original", false);
    }

    @Override
    public TokenStream create(TokenStream in) {
        return new EdgeNGramTokenFilter(in, minGram, maxGram, preserveOriginal);
    }

    @Override
    public boolean breaksFastVectorHighlighter() {
        return true;
    }

    @Override
    public TokenFilterFactory getSynonymFilter() {
        throw new IllegalArgumentException("Token filter [" + name() + "] cannot be used to parse synonyms");
    }
}
