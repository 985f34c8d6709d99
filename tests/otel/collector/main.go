// The OpenTelemetry Collector with what make otel-check needs and nothing else: the filelog
// receiver, the batch processor and the kafka exporter (contrib), built from the Go module proxy
// (scripts/otelcol.sh). Not part of the job: a real client to check the otlp contract against.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/kafkaexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver"
)

func factories() (otelcol.Factories, error) {
	return otelcol.Factories{
		Receivers:  otelcol.MakeFactoryMap[receiver.Factory](filelogreceiver.NewFactory()),
		Processors: otelcol.MakeFactoryMap[processor.Factory](batchprocessor.NewFactory()),
		Exporters:  otelcol.MakeFactoryMap[exporter.Factory](kafkaexporter.NewFactory()),
	}, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{Command: "errorcount-otelcol", Description: "filelog to kafka", Version: "0.165.0"},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}
