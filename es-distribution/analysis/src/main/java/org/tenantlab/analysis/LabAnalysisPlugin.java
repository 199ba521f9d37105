package org.tenantlab.analysis;

import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterIterator;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenFilter;
import org.apache.lucene.analysis.ngram.EdgeNGramTokenizer;
import org.elasticsearch.index.analysis.PreConfiguredTokenFilter;
import org.elasticsearch.index.analysis.PreConfiguredTokenizer;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

import java.util.List;
import java.util.Map;

import static org.elasticsearch.plugins.AnalysisPlugin.requiresAnalysisSettings;

/**
 * The storefront's analysis components under the names Elasticsearch's analysis-common module
 * gives them, so one index template (allocator/schema/products-analysis.json) works in the native
 * runtime and on the official image. Each component is Lucene's own class from
 * lucene-analysis-common, at the version the server runs; the settings and their defaults are
 * analysis-common's documented ones.
 *
 * Left out on purpose: the server itself already pre-configures the `lowercase` filter and the
 * `lowercase` normalizer (registering them again would refuse to start the node), and the
 * `standard` tokenizer.
 */
public class LabAnalysisPlugin extends Plugin implements AnalysisPlugin {

    @Override
    public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
        return Map.of(
            "edge_ngram", EdgeNGramTokenizerFactory::new,
            "keyword", (indexSettings, env, name, settings) -> TokenizerFactory.newFactory(name, KeywordTokenizer::new),
            "whitespace", (indexSettings, env, name, settings) -> TokenizerFactory.newFactory(name, WhitespaceTokenizer::new)
        );
    }

    @Override
    public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
        return Map.of(
            "edge_ngram", EdgeNGramTokenFilterFactory::new,
            "lowercase", LowercaseTokenFilterFactory::new,
            "asciifolding", AsciiFoldingTokenFilterFactory::new,
            "word_delimiter_graph", WordDelimiterGraphTokenFilterFactory::new,
            // a synonym filter without its rules is a configuration mistake, named at index creation
            "synonym", requiresAnalysisSettings((indexSettings, env, name, settings) ->
                new SynonymTokenFilterFactory(env, name, settings, false)),
            "synonym_graph", requiresAnalysisSettings((indexSettings, env, name, settings) ->
                new SynonymTokenFilterFactory(env, name, settings, true))
        );
    }

    /** The components usable by name alone, with analysis-common's defaults. */
    @Override
    public List<PreConfiguredTokenFilter> getPreConfiguredTokenFilters() {
        return List.of(
            PreConfiguredTokenFilter.singleton("asciifolding", true, ASCIIFoldingFilter::new),
            PreConfiguredTokenFilter.singleton("edge_ngram", false, false, input -> new EdgeNGramTokenFilter(input, 1)),
            PreConfiguredTokenFilter.singleton("word_delimiter_graph", false, false, input -> new WordDelimiterGraphFilter(
                input,
                true,
                WordDelimiterIterator.DEFAULT_WORD_DELIM_TABLE,
                WordDelimiterGraphFilter.GENERATE_WORD_PARTS | WordDelimiterGraphFilter.GENERATE_NUMBER_PARTS
                    | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE | WordDelimiterGraphFilter.SPLIT_ON_NUMERICS
                    | WordDelimiterGraphFilter.STEM_ENGLISH_POSSESSIVE,
                null
            ))
        );
    }

    @Override
    public List<PreConfiguredTokenizer> getPreConfiguredTokenizers() {
        return List.of(
            PreConfiguredTokenizer.singleton("keyword", KeywordTokenizer::new),
            PreConfiguredTokenizer.singleton("whitespace", WhitespaceTokenizer::new),
            PreConfiguredTokenizer.singleton("edge_ngram", () -> new EdgeNGramTokenizer(
                EdgeNGramTokenizerFactory.DEFAULT_MIN_GRAM, EdgeNGramTokenizerFactory.DEFAULT_MAX_GRAM))
        );
    }
}
